import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import type { JobEndNotifications } from '../db/job-end-notifications.ts';
import type { KeyAndJobStatusReader } from '../services/research/job-status.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { KeyLastUse } from '../services/accounts/key-last-use.ts';
import type { Billing } from '../services/billing/billing.ts';
import type { Crm } from '../services/crm/crm.ts';
import type { AgentAuthorization } from './mcp/agent-tokens.ts';
import type { McpServer } from '@modelcontextprotocol/server';

export interface ApiDeps {
  orm: Orm;
  /** Status polls: authentication and the job's row, batched, on connections of their own. */
  statusReader: KeyAndJobStatusReader;
  /** Wakes `?wait` long polls when their job ends (PostgreSQL LISTEN). */
  jobEnds: JobEndNotifications;
  temporal: Client;
  config: Config;
  logger: Logger;
  clock: () => Date;
  /** Records a key's last use, at most once a minute (docs/decisions.md#the-dashboard). */
  keyLastUse: KeyLastUse;
  /** The address users reach the app at (PUBLIC_URL): the base of links in e-mails, never taken from a request's Host. */
  publicUrl: string;
  /** Stripe, or null where payments are not configured; read once from the environment at start-up. */
  billing: Billing;
  /** The CRM integration, or null where no CRM app is configured: a plan change below Growth pauses its integrations. */
  crm?: Crm | null;
  /** Hosted agents' OAuth (api/mcp/agent-tokens.ts); absent, /mcp takes API keys only. */
  agentAuthorization?: AgentAuthorization;
  /** True from the first SIGTERM: readiness is false, long polls answer at once, and the API stops taking requests. */
  isDraining?: () => boolean;
  /**
   * Tests only, never set by the production entry point: registers more MCP
   * tools, resources and prompts on each request's server (the conformance
   * suite's fixtures, test/mcp/conformance-fixtures.ts).
   */
  mcpTestFixtures?: (server: McpServer) => void;
}

/** Koa state of every request: a request-scoped EntityManager (docs/architecture.md#one-entitymanager-per-request). */
export interface RequestState {
  em: EntityManager;
}
