// The local stand-ins `npm run dev` (and the throwaway stacks of bench, fuzz
// and chaos) start, one entry each. Adding a stand-in is one entry here: its
// entry point, its port(s) with the variable that sets each, how to tell it
// answers, when the environment asks for the real service instead, and what
// the API and the worker are told about it. The variables belong in
// .env.example too.
import { join } from 'node:path';
import { withoutBlanks, type Env } from '../../lib/env.ts';

export interface SandboxPort {
  /** The key callers use in `ports` (scripts/lib/local-services.ts). */
  key: string;
  /** The variable that moves it (read by scripts/lib/dev-ports.ts). */
  variable: string;
  defaultPort: number;
}

/** What a stand-in may need to know besides its ports. */
export interface SandboxContext {
  /** The environment, blank values removed. */
  env: Env;
  /** The API's base URL when the caller runs one on a known port (`npm run dev`), else null. */
  apiUrl: string | null;
  /** Where this run keeps its data (`.data/` for `npm run dev`). */
  dataDir: string;
}

export interface SandboxSpec {
  /** Process name, log file name (.data/logs/<name>.log) and pid file name. */
  name: string;
  /** Entry point, relative to the checkout's root. */
  entry: string;
  /** Its ports; the first is the HTTP port that `probePath` is asked on. */
  ports: [SandboxPort, ...SandboxPort[]];
  /** Answers 200 once the stand-in serves (its JSON inspection endpoint). */
  probePath: string;
  /** False when the environment configures the real service (or another stand-in) instead. */
  isWanted(context: SandboxContext): boolean;
  /** The child's own variables, given its ports by key. */
  childEnv(ports: Record<string, number>, context: SandboxContext): Record<string, string>;
  /** What the API and the worker are told, given its base URL and ports. */
  appEnv(url: string, ports: Record<string, number>, context: SandboxContext): Record<string, string>;
}

export const SANDBOXES: SandboxSpec[] = [
  {
    name: 'provider-world',
    entry: 'sandbox/provider-world/main.ts',
    ports: [{ key: 'providerWorld', variable: 'SANDBOX_PROVIDER_PORT', defaultPort: 4010 }],
    probePath: '/__admin/calls',
    isWanted: ({ env }) => !env.PDL_API_KEY && !env.APOLLO_API_KEY && !env.PROVIDER_SANDBOX_URL,
    childEnv: (ports) => ({ PORT: String(ports.providerWorld), SANDBOX_PROVIDER_PORT: String(ports.providerWorld) }),
    // Its company websites (the site stand-in) are read by technology detection, through the outbound guard.
    appEnv: (url, _ports, context) => ({ PROVIDER_SANDBOX_URL: url, ...reachable(url, context) }),
  },
  {
    name: 'model-sandbox',
    entry: 'sandbox/model/main.ts',
    ports: [{ key: 'modelSandbox', variable: 'SANDBOX_MODEL_PORT', defaultPort: 4110 }],
    probePath: '/__admin/calls',
    isWanted: ({ env }) => !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL && !env.AI_SANDBOX_URL,
    childEnv: (ports) => ({ PORT: String(ports.modelSandbox), SANDBOX_MODEL_PORT: String(ports.modelSandbox) }),
    // It also serves the sample product pages a key is drafted from, through the outbound guard.
    appEnv: (url, _ports, context) => ({ AI_SANDBOX_URL: `${url}/v1`, ...reachable(url, context) }),
  },
  {
    // Posts its signed events to the API's webhook, so only where the API's address is known.
    name: 'stripe-sandbox',
    entry: 'sandbox/stripe/main.ts',
    ports: [{ key: 'stripe', variable: 'SANDBOX_STRIPE_PORT', defaultPort: 4210 }],
    probePath: '/__admin/calls',
    isWanted: ({ env, apiUrl }) => !env.STRIPE_SECRET_KEY && apiUrl !== null,
    childEnv: (ports, { env, apiUrl, dataDir }) => ({
      PORT: String(ports.stripe),
      STRIPE_WEBHOOK_URL: `${apiUrl}/webhooks/stripe`,
      STRIPE_WEBHOOK_SECRET: stripeWebhookSecret(env),
      // Beside the database that holds its customer and subscription ids, so a restart keeps both.
      STRIPE_SANDBOX_STATE_FILE: join(dataDir, 'stripe-sandbox.json'),
    }),
    // A local signing secret: the stand-in signs with it, the API verifies with it.
    appEnv: (url, _ports, { env }) => ({
      STRIPE_API_BASE: url,
      STRIPE_SECRET_KEY: 'sk_test_local_stripe_sandbox',
      STRIPE_WEBHOOK_SECRET: stripeWebhookSecret(env),
    }),
  },
  {
    // The SMTP stand-in: the API's and the worker's mail (verification, reset, alerts) lands in its web inbox.
    name: 'mail-sandbox',
    entry: 'sandbox/mail/main.ts',
    ports: [
      { key: 'mailInbox', variable: 'SANDBOX_MAIL_PORT', defaultPort: 4310 },
      { key: 'mailSmtp', variable: 'SANDBOX_SMTP_PORT', defaultPort: 4025 },
    ],
    probePath: '/__admin/calls',
    isWanted: ({ env }) => !env.SMTP_HOST,
    childEnv: (ports) => ({ PORT: String(ports.mailInbox), SMTP_PORT: String(ports.mailSmtp) }),
    appEnv: (_url, ports) => ({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(ports.mailSmtp), SMTP_SECURE: 'false' }),
  },
  {
    // HubSpot's OAuth and CRM API: the app's client id and secret are the stand-in's own.
    name: 'hubspot-sandbox',
    entry: 'sandbox/hubspot/main.ts',
    ports: [{ key: 'hubspot', variable: 'SANDBOX_HUBSPOT_PORT', defaultPort: 4410 }],
    probePath: '/__admin/faults',
    isWanted: ({ env }) => !env.HUBSPOT_CLIENT_SECRET && !env.HUBSPOT_API_BASE,
    childEnv: (ports, { env }) => ({ PORT: String(ports.hubspot), ...(env.SANDBOX_SEED ? { SANDBOX_SEED: env.SANDBOX_SEED } : {}) }),
    appEnv: (url) => ({
      HUBSPOT_API_BASE: url,
      HUBSPOT_OAUTH_BASE: url,
      HUBSPOT_APP_BASE: url,
      HUBSPOT_CLIENT_ID: 'sandbox-hubspot-client-id',
      HUBSPOT_CLIENT_SECRET: 'sandbox-hubspot-client-secret',
    }),
  },
  {
    // Pipedrive's OAuth and API (v1 and v2): a second CRM the CRM page offers; the app's client id and secret are the stand-in's own.
    name: 'pipedrive-sandbox',
    entry: 'sandbox/pipedrive/main.ts',
    ports: [{ key: 'pipedrive', variable: 'SANDBOX_PIPEDRIVE_PORT', defaultPort: 4420 }],
    probePath: '/__admin/state',
    isWanted: ({ env }) => !env.PIPEDRIVE_CLIENT_SECRET && !env.PIPEDRIVE_OAUTH_BASE,
    childEnv: (ports, { env }) => ({ PORT: String(ports.pipedrive), ...(env.SANDBOX_SEED ? { SANDBOX_SEED: env.SANDBOX_SEED } : {}) }),
    appEnv: (url) => ({
      PIPEDRIVE_OAUTH_BASE: url,
      PIPEDRIVE_API_BASE: url,
      PIPEDRIVE_CLIENT_ID: 'sandbox-pipedrive-client-id',
      PIPEDRIVE_CLIENT_SECRET: 'sandbox-pipedrive-client-secret',
    }),
  },
  {
    // Salesforce's OAuth (web server flow with PKCE) and REST API: a third CRM the CRM page offers.
    name: 'salesforce-sandbox',
    entry: 'sandbox/salesforce/main.ts',
    ports: [{ key: 'salesforce', variable: 'SANDBOX_SALESFORCE_PORT', defaultPort: 4430 }],
    probePath: '/__admin/faults',
    isWanted: ({ env }) => !env.SALESFORCE_CLIENT_SECRET && !env.SALESFORCE_LOGIN_BASE,
    childEnv: (ports, { env }) => ({ PORT: String(ports.salesforce), ...(env.SANDBOX_SEED ? { SANDBOX_SEED: env.SANDBOX_SEED } : {}) }),
    appEnv: (url) => ({
      SALESFORCE_LOGIN_BASE: url,
      SALESFORCE_CLIENT_ID: 'sandbox-salesforce-consumer-key',
      SALESFORCE_CLIENT_SECRET: 'sandbox-salesforce-consumer-secret',
    }),
  },
  {
    // Slack-style incoming webhooks on loopback, which CRM settings accept only because ALLOW_PRIVATE_HOSTS says so.
    name: 'chat-sandbox',
    entry: 'sandbox/chat/main.ts',
    ports: [{ key: 'chat', variable: 'SANDBOX_CHAT_PORT', defaultPort: 4510 }],
    probePath: '/__admin/messages',
    isWanted: ({ env }) => !env.CRM_CHAT_SANDBOX_URL,
    childEnv: (ports) => ({ PORT: String(ports.chat) }),
    appEnv: (url, _ports, context) => ({ CRM_CHAT_SANDBOX_URL: url, ...reachable(url, context) }),
  },
  {
    // Receives our own completion webhooks and verifies their signatures (sandbox/webhook-receiver).
    // It listens on loopback, which webhook endpoints may never resolve to: ALLOW_PRIVATE_HOSTS lets deliveries reach it.
    name: 'webhook-receiver',
    entry: 'sandbox/webhook-receiver/main.ts',
    ports: [{ key: 'webhookReceiver', variable: 'SANDBOX_WEBHOOK_PORT', defaultPort: 4610 }],
    probePath: '/__admin/received',
    isWanted: ({ env }) => env.NODE_ENV !== 'production',
    childEnv: (ports) => ({ PORT: String(ports.webhookReceiver) }),
    appEnv: (url, _ports, context) => ({ WEBHOOK_RECEIVER_URL: url, ...reachable(url, context) }),
  },
];

/**
 * The outbound guard (integrations/web/outbound-guard.ts) lets server-side
 * fetches of user-given addresses reach a stand-in on loopback only when
 * ALLOW_PRIVATE_HOSTS names its host: development and tests, never production
 * (where the variable is refused, and the stand-in's pages stay out of reach).
 */
const reachable = (url: string, { env }: SandboxContext): Record<string, string> =>
  env.NODE_ENV === 'production' ? {} : { ALLOW_PRIVATE_HOSTS: new URL(url).hostname };

const stripeWebhookSecret = (env: Env) => env.STRIPE_WEBHOOK_SECRET ?? 'whsec_local_stripe_sandbox';

/** The stand-ins this environment needs (blank variables count as unset). */
export function wantedSandboxes(env: Env, apiUrl: string | null, dataDir: string): { sandbox: SandboxSpec; context: SandboxContext }[] {
  const context = { env: withoutBlanks(env), apiUrl, dataDir };
  return SANDBOXES.filter((sandbox) => sandbox.isWanted(context)).map((sandbox) => ({ sandbox, context }));
}
