import { randomBytes } from 'node:crypto';
import { Account } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import { billingFromEnv, type StripeBilling } from '../../integrations/stripe/index.ts';
import { startStripeSandbox, type StripeSandbox } from '../../sandbox/stripe/server.ts';
import type { SandboxEvent } from '../../sandbox/stripe/world.ts';
import { consumeCredit, lockAccount } from '../../services/billing/credits.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

export const APP_URL = 'https://app.example.test';
export const CHECKOUT_URLS = { successUrl: `${APP_URL}/app/billing?checkout={CHECKOUT_SESSION_ID}`, cancelUrl: `${APP_URL}/app/billing?checkout=cancelled` };

export interface LedgerRow {
  kind: string;
  used_delta: number;
  limit_after: number;
  note: string | null;
}

export interface BillingStack {
  stack: TestStack;
  stripe: StripeSandbox;
  billing: StripeBilling;
  webhookSecret: string;
  webhookUrl: string;
  /** Every event the stand-in emitted so far has been delivered (or given up on). */
  settled(): Promise<void>;
  account(accountId: number): Promise<IAccount>;
  ledger(accountId: number): Promise<LedgerRow[]>;
  /** The account's payment-failure mails in the outbox. */
  outbox(accountId: number): Promise<Array<{ recipient: string; subject: string; dedupe_key: string }>>;
  appliedEvents(): Promise<Array<{ id: string; type: string; account_id: number | null }>>;
  /** Takes `count` credits, as research jobs do. */
  useCredits(accountId: number, count: number): Promise<void>;
  events(type?: string): SandboxEvent[];
  /** Moves the stand-in's clock (renewals, schedule phases) and waits for the webhooks. */
  advanceClockTo(when: Date): Promise<void>;
  /** Waits for deliveries, then empties the stand-in (objects, events, clock). */
  resetStripe(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The real API (with its webhook route) on a fresh database, and the Stripe
 * stand-in in-process on a free port, delivering signed events to the API.
 * The route reads its Stripe settings from the environment, as in production.
 */
export async function startBillingStack(): Promise<BillingStack> {
  const webhookSecret = `whsec_test_${randomBytes(12).toString('hex')}`;
  const stripe = await startStripeSandbox({ port: 0, webhookSecret, retryDelaysMs: [100, 300, 1_000] });
  Object.assign(process.env, { STRIPE_SECRET_KEY: 'sk_test_billing_suite', STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_BASE: stripe.url, PUBLIC_URL: APP_URL });
  const stack = await startTestStack({ withWorker: false });
  const webhookUrl = `${stack.apiUrl}/webhooks/stripe`;
  stripe.webhooks.settings.url = webhookUrl;
  const billing = billingFromEnv()!;
  const query = <T>(sql: string, params: unknown[]) => stack.orm.em.fork().getConnection().execute(sql, params) as Promise<T[]>;

  const handle: BillingStack = {
    stack,
    stripe,
    billing,
    webhookSecret,
    webhookUrl,
    settled: () => stripe.webhooks.idle(),
    account: (accountId) => stack.orm.em.fork().findOneOrFail(Account, accountId),
    ledger: (accountId) => query<LedgerRow>('select kind, used_delta, limit_after, note from credit_ledger_entry where account_id = ? order by id', [accountId]),
    outbox: (accountId) => query("select recipient, subject, dedupe_key from email_outbox where account_id = ? and dedupe_key like 'payment-failed:%' order by id", [accountId]),
    appliedEvents: () => query('select id, type, account_id from stripe_event order by received_at', []),
    async useCredits(accountId, count) {
      await stack.orm.em.fork().transactional(async (tx) => {
        const account = await lockAccount(tx, accountId, new Date());
        for (let i = 0; i < count; i += 1) {
          const taken = await consumeCredit(tx, account, `res_billing_${randomBytes(6).toString('hex')}`, { publicUrl: APP_URL });
          if (taken.outcome !== 'taken') throw new Error(`credit refused: ${JSON.stringify(taken)}`);
        }
        await tx.flush();
      });
    },
    events: (type) => stripe.world.events.filter((event) => !type || event.type === type),
    async advanceClockTo(when) {
      const reply = await fetch(`${stripe.url}/__sandbox/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: when.toISOString() }) });
      if (!reply.ok) throw new Error(`clock: ${reply.status} ${await reply.text()}`);
      await stripe.webhooks.idle();
    },
    async resetStripe() {
      await stripe.webhooks.idle();
      const reply = await fetch(`${stripe.url}/__sandbox/reset`, { method: 'POST' });
      if (!reply.ok) throw new Error(`reset: ${reply.status}`);
    },
    async stop() {
      await stack.stop();
      await stripe.close();
    },
  };
  return handle;
}

/** Goes through the stand-in's hosted Checkout page as a browser would: the page, then its Pay (or Cancel) button. */
export async function clickCheckout(url: string, button: 'Pay' | 'Cancel'): Promise<{ status: number; location: string | null; page: string }> {
  const page = await (await fetch(url)).text();
  const action = [...page.matchAll(/<form method="post" action="([^"]+)"><button type="submit"[^>]*>([^<]+)<\/button>/g)].find((match) => match[2] === button)?.[1];
  if (!action) throw new Error(`no "${button}" button on ${url}`);
  const reply = await fetch(new URL(action, url), { method: 'POST', redirect: 'manual' });
  return { status: reply.status, location: reply.headers.get('location'), page };
}
