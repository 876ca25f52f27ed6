import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Middleware } from 'koa';
import pg from 'pg';
import type { Orm } from '../../db/orm.ts';
import type { ProductContext } from '../../domain/research/product-context.ts';
import type { Mailer } from '../../integrations/mail/mailer.ts';
import type { Logger } from '../../lib/logger.ts';
import { isAccountDeleted } from '../../services/accounts/deletion.ts';
import type { Billing } from '../../services/billing/billing.ts';
import type { Crm } from '../../services/crm/crm.ts';
import { findAccountOfUser, followOwnerEmail, hasUnclaimedAccount, isAccountEmail, linkAccountOwner } from '../../services/accounts/owners.ts';
import type { RequestState } from '../deps.ts';
import { createDashboardAuth, type AccountLink, type DashboardAuth } from './auth.ts';
import { authMount } from './auth-mount.ts';
import type { DashboardConfig } from './config.ts';
import { sameOriginOnly, signedInOnly, type DashboardState } from './guard.ts';
import { accountRouter } from './routes/account.ts';
import { accountDeletionRouter } from './routes/account-deletion.ts';
import { billingRouter } from './routes/billing.ts';
import { configRouter } from './routes/config.ts';
import { crmRouter } from './routes/crm.ts';
import { jobsRouter } from './routes/jobs.ts';
import { keysRouter } from './routes/keys.ts';
import { listsRouter } from './routes/lists.ts';
import type { ListRunStarts } from '../../services/lists/runs.ts';
import { webhooksRouter } from './routes/webhooks.ts';
import { agentsRouter } from './routes/agents.ts';
import { loadWebhookConfig, type WebhookConfig } from '../../integrations/webhooks/config.ts';

export interface DashboardDeps {
  orm: Orm;
  databaseUrl: string;
  temporal: Client;
  config: DashboardConfig;
  mailer: Mailer;
  logger: Logger;
  clock: () => Date;
  draftProductContext(url: string): Promise<ProductContext>;
  /** Stripe, or null where payments are not configured (the Billing page says so). */
  billing: Billing;
  /** The CRM integration, or null where no CRM app is configured (the CRM page says so). */
  crm?: Crm | null;
  /** Webhook secrets' key and the development allow-list (integrations/webhooks/config.ts). */
  webhooks?: WebhookConfig;
  /** Where list runs start (the research task queue) and their jobs' deadline. */
  lists: Omit<ListRunStarts, 'temporal'>;
}

export interface Dashboard {
  auth: DashboardAuth;
  /** The auth endpoints and the JSON API under /app/api. */
  middleware: Middleware<RequestState>[];
  close(): Promise<void>;
}

/** The dashboard's server side: better-auth, and one thin router per page concern (docs/architecture.md#the-dashboard). */
export function createDashboard(deps: DashboardDeps): Dashboard {
  const pool = new pg.Pool({ connectionString: deps.databaseUrl, max: 5 });
  // An idle connection ended by the server (a restart, a failover) must not end the API: pg-pool emits it
  // here and replaces the connection on the next query.
  pool.on('error', (error) => deps.logger.warn({ err: error }, 'an idle dashboard-auth connection failed; it is replaced on demand'));
  const webhooks = deps.webhooks ?? loadWebhookConfig();
  const auth = createDashboardAuth({ pool, config: deps.config, mailer: deps.mailer, accounts: accountLink(deps), logger: deps.logger, allowedPrivateHosts: webhooks.allowedPrivateHosts });
  const api = new Router<DashboardState>({ prefix: '/app/api' });
  api.use(signedInOnly(auth, deps.clock));
  const endSessions = async (userId: string) => void (await pool.query('delete from auth_session where "userId" = $1', [userId]));
  const routers = [
    accountRouter(),
    configRouter(deps.config),
    keysRouter(deps),
    jobsRouter(deps),
    billingRouter({ billing: deps.billing, publicUrl: deps.config.publicUrl, clock: deps.clock }),
    accountDeletionRouter({ auth, billing: deps.billing, clock: deps.clock, endSessions, pauseCrm: deps.crm ? (accountId) => deps.crm!.onAccountDeleted(accountId) : undefined }),
    crmRouter({ crm: deps.crm ?? null, temporal: deps.temporal, publicUrl: deps.config.publicUrl, clock: deps.clock, logger: deps.logger }),
    webhooksRouter({ clock: deps.clock, webhooks }),
    agentsRouter({ publicUrl: deps.config.publicUrl }),
    listsRouter({ temporal: deps.temporal, clock: deps.clock, logger: deps.logger, lists: deps.lists }),
  ];
  for (const router of routers) api.use(router.routes(), router.allowedMethods());
  return {
    auth,
    middleware: [sameOriginOnly(deps.config) as Middleware<RequestState>, authMount(auth, deps.config, deps.clock), api.routes() as Middleware<RequestState>],
    close: () => pool.end(),
  };
}

function accountLink(deps: DashboardDeps): AccountLink {
  return {
    linkOwner: async (user) => void (await linkAccountOwner(deps.orm.em.fork(), user, deps.clock())),
    hasUnclaimedAccount: (email) => hasUnclaimedAccount(deps.orm.em.fork(), email),
    isAccountEmail: (email) => isAccountEmail(deps.orm.em.fork(), email),
    followOwnerEmail: (user) => followOwnerEmail(deps.orm.em.fork(), user),
    isSignInRefused: async (userId) => {
      const em = deps.orm.em.fork();
      const account = await findAccountOfUser(em, userId, deps.clock());
      return account === null || (await isAccountDeleted(em, account.id));
    },
  };
}
