// The CRM integration as one object for the API and the worker: the
// configured CRMs (each with its OAuth and adapter), tokens, the portals'
// budgets, and the operations that
// must move the database and the Temporal Schedules together (pause,
// disconnect, account deletion, plan changes, Run now).
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm.ts';
import { CRM_SYNC_WORKFLOW_TYPE } from '../../domain/crm/crm.ts';
import type { CrmSyncInput } from '../../domain/crm/sync-contract.ts';
import { DEFAULT_CRM_RUNS_PER_ACCOUNT } from '../../domain/crm/run-cap.ts';
import { RESEARCH_PRIORITY_KEY } from '../../domain/research/fanout.ts';
import { accountFairness, type FairnessWeights } from '../../domain/research/fairness.ts';
import type { PlanName } from '../../domain/billing/plans.ts';
import { loadCrmConfig, type CrmConfig } from '../../integrations/crm/config.ts';
import { crmProviderKits, type CrmProviderKits } from '../../integrations/crm/providers.ts';
import type { Env } from '../../lib/env.ts';
import type { Logger } from '../../lib/logger.ts';
import { createCrmTokens, pauseAccountIntegrations, type CrmTokens } from './connections.ts';
import { createPortalBudgets, type PortalBudgets } from './portal-budget.ts';
import { CRM_ACCOUNT_ATTRIBUTE, CRM_PRODUCT_ATTRIBUTE, crmTaskQueue, reconcileCrmSchedule } from './schedules.ts';
import type { CrmSyncDeps } from './sync.ts';

export interface Crm {
  config: CrmConfig;
  /** The configured CRMs. */
  kits: CrmProviderKits;
  tokens: CrmTokens;
  budgets: PortalBudgets;
  syncDeps: CrmSyncDeps;
  /** CRM runs of one account running at once (CRM_RUNS_PER_ACCOUNT; services/crm/run-turns.ts). */
  runsPerAccount: number;
  /** Brings these products' Schedules in line with the database (logged, never thrown: the next reconcile retries). */
  reconcile(productIds: number[]): Promise<void>;
  /** Pauses every integration of the account with a reason, Schedules included. */
  pauseAccount(accountId: number, reason: string): Promise<void>;
  /** Account deletion (services/accounts/deletion.ts `pauseCrm`): token revoked at HubSpot, everything paused. */
  onAccountDeleted(accountId: number): Promise<void>;
  /**
   * "Run now": a run started at once, with its own id; the Schedule's overlap rule does not apply, the contact
   * claims do, and so does the account's cap on runs at once (it may wait `queued`; services/crm/run-turns.ts).
   */
  runNow(accountId: number, productId: number): Promise<string>;
}

export function createCrm(deps: {
  orm: Orm; temporal: Client; env: Env; publicUrl: string; clock: () => Date; researchTaskQueue: string; logger: Logger;
  /** Each plan's fairness weight (config.fairnessWeights); unset: equal. */
  fairnessWeights?: FairnessWeights;
  /** config.crmRunsPerAccount; unset: the default. */
  runsPerAccount?: number;
}): Crm | null {
  const config = loadCrmConfig(deps.env);
  if (!config) return null;
  const em = () => deps.orm.em.fork();
  const kits = crmProviderKits(config);
  // One budget per portal shared with every other process that calls it (docs/crm.md#rate-limits).
  const budgets = createPortalBudgets({ em });
  const reconcile = async (productIds: number[]) => {
    for (const productId of productIds) {
      try {
        await reconcileCrmSchedule(deps.temporal, em(), productId, deps.researchTaskQueue);
      } catch (error) {
        deps.logger.warn({ err: error, productId }, 'could not bring a CRM Schedule in line; the worker reconciles it at start');
      }
    }
  };
  const tokens = createCrmTokens({ em, tokenKey: config.tokenKey, kits, clock: deps.clock, publicUrl: deps.publicUrl, onPaused: reconcile });
  const syncDeps: CrmSyncDeps = { em, clock: deps.clock, config, kits, tokens, budgets, publicUrl: deps.publicUrl };

  return {
    config, kits, tokens, budgets, syncDeps, reconcile, runsPerAccount: deps.runsPerAccount ?? DEFAULT_CRM_RUNS_PER_ACCOUNT,
    async pauseAccount(accountId, reason) {
      await pauseAccountIntegrations(em(), accountId, reason, deps.clock());
      await reconcile(await productsOf(accountId));
    },
    async onAccountDeleted(accountId) {
      const [connection]: Array<{ status: string }> = await em().execute('select status from crm_connection where account_id = ?', [accountId]);
      if (connection?.status === 'connected') await tokens.disconnect(accountId, 'account_deleted');
      await pauseAccountIntegrations(em(), accountId, 'account_deleted', deps.clock());
      await reconcile(await productsOf(accountId));
    },
    async runNow(accountId, productId) {
      const workflowId = `crm-run-${productId}-${randomUUID()}`;
      const input: CrmSyncInput = { productId, trigger: 'manual' };
      const [account]: Array<{ plan: PlanName }> = await em().execute('select plan from account where id = ?', [accountId]);
      await deps.temporal.workflow.start(CRM_SYNC_WORKFLOW_TYPE, {
        workflowId,
        taskQueue: crmTaskQueue(deps.researchTaskQueue),
        args: [input],
        // Its contacts' research inherits this: behind callers' own jobs, and
        // in turns with other accounts' work rather than after all of this run's.
        priority: { priorityKey: RESEARCH_PRIORITY_KEY.crm, ...accountFairness(accountId, account?.plan ?? 'free', deps.fairnessWeights) },
        typedSearchAttributes: [
          { key: CRM_ACCOUNT_ATTRIBUTE, value: String(accountId) },
          { key: CRM_PRODUCT_ATTRIBUTE, value: String(productId) },
        ],
      });
      return workflowId;
    },
  };

  async function productsOf(accountId: number): Promise<number[]> {
    const rows: Array<{ product_id: number }> = await em().execute('select product_id from crm_integration where account_id = ?', [accountId]);
    return rows.map((row) => row.product_id);
  }
}
