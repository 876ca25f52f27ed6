import type { EntityManager } from '@mikro-orm/postgresql';
import type { OperationalState } from '../lib/metrics.ts';
import { accountsWithLedgerDrift } from '../services/billing/ledger-drift.ts';
import { oldestQueuedAgeSeconds } from '../services/research/backlog.ts';
import { failingEndpointCount } from '../services/webhooks/failing-endpoints.ts';

/** The state gauges of the API's /metrics (lib/metrics.ts), each read by its feature's service. */
export async function readOperationalState(em: EntityManager, now: Date): Promise<OperationalState> {
  const [researchBacklogOldestSeconds, webhookEndpointsFailing, creditsLedgerDriftAccounts] = await Promise.all([
    oldestQueuedAgeSeconds(em, now),
    failingEndpointCount(em),
    accountsWithLedgerDrift(em),
  ]);
  return { researchBacklogOldestSeconds, webhookEndpointsFailing, creditsLedgerDriftAccounts };
}
