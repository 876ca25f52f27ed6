import type { EntityManager } from '@mikro-orm/postgresql';
import type { FanoutItem, FanoutJobRecord, FanoutOwner } from '../../domain/research/fanout.ts';
import type { ResearchFailure } from '../../domain/research/contract.ts';
import { newResearchId } from '../../lib/ids.ts';
import { jobMetrics } from '../../lib/metrics.ts';
import { consumeCredit, lockAccount } from '../billing/credits.ts';
import type { UsageAlertSettings } from '../billing/usage-alerts.ts';
import { recordResearchJob } from './workflow-start-outbox.ts';

/**
 * The fan-out's step for one item (workflows/research-fanout.ts): records its
 * research job and takes its credit in one transaction, by the same rules as
 * `POST /research` (services/research/jobs.ts). The job is marked started at
 * once: the fan-out starts it as its child, so the start relay must not.
 *
 * Idempotent per item: the job of (`owner.ref`, `item.key`) is found again, so
 * a retried step (a worker killed after the commit) never charges twice. A
 * list that is no longer running takes no new item (a Cancel wins over rows
 * not yet started), nor does an account being deleted.
 */
export async function recordFanoutJob(
  em: EntityManager,
  owner: FanoutOwner,
  item: FanoutItem,
  now: Date,
  alerts: UsageAlertSettings,
): Promise<FanoutJobRecord> {
  const record = await em.transactional(async (tx): Promise<FanoutJobRecord & { isNew?: boolean }> => {
    const account = await lockAccount(tx, owner.accountId, now);
    const [earlier]: Array<{ id: string; submitted_at: Date | string }> = await tx.execute(
      'select id, submitted_at from research_job where source_ref = ? and source_item = ?',
      [owner.ref, item.key],
    );
    if (earlier) return { outcome: 'recorded', researchId: earlier.id, submittedAtMs: new Date(earlier.submitted_at).getTime() };
    // An account being deleted takes no new job from any source (its keys are revoked at once too).
    if (account.deletionRequestedAt) return { outcome: 'stopped' };
    if (owner.source === 'list') {
      // Under the account lock, as is a Cancel's status change (services/lists/lists.ts).
      const [list]: Array<{ status: string }> = await tx.execute('select status from prospect_list where id = ?', [owner.ref]);
      if (list?.status !== 'running') return { outcome: 'stopped' };
    }
    const researchId = newResearchId();
    const credit = await consumeCredit(tx, account, researchId, alerts);
    if (credit.outcome === 'refused') return { outcome: 'out_of_credits' };
    recordResearchJob(tx, {
      id: researchId,
      accountId: owner.accountId,
      productId: owner.productId,
      apiKeyId: owner.apiKeyId,
      request: item.request,
      submittedAt: now,
    });
    await tx.flush();
    await tx.execute(
      'update research_job set source = ?, source_ref = ?, source_item = ?, workflow_started_at = ? where id = ?',
      [owner.source, owner.ref, item.key, now, researchId],
    );
    if (owner.source === 'list') {
      await tx.execute(`update prospect_list_row set status = 'started', research_id = ? where list_id = ? and position = ?`, [researchId, owner.ref, Number(item.key)]);
    }
    return { outcome: 'recorded', researchId, submittedAtMs: now.getTime(), isNew: true };
  });
  if (record.isNew) {
    jobMetrics.accepted.inc();
    jobMetrics.creditsConsumed.inc();
  }
  if (record.outcome !== 'recorded') return record;
  return { outcome: 'recorded', researchId: record.researchId, submittedAtMs: record.submittedAtMs };
}

/** How an item's job ended, read from its row (a child that was already started elsewhere). */
export async function fanoutJobEnd(em: EntityManager, researchId: string): Promise<{ status: string; error: ResearchFailure | null }> {
  const [row]: Array<{ status: string; error: ResearchFailure | null }> = await em.execute('select status, error from research_job where id = ?', [researchId]);
  return row ?? { status: 'failed', error: 'internal_error' };
}
