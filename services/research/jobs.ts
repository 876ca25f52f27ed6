import type { EntityManager } from '@mikro-orm/postgresql';
import { ResearchJob } from '../../db/entities/index.ts';
import type { AuthenticatedKey } from '../accounts/api-keys.ts';
import type { IResearchJob } from '../../db/entities/research-job.ts';
import type { PlanName } from '../../domain/billing/plans.ts';
import type { ResearchRequest } from '../../domain/research/request.ts';
import type { StoredResearchReply } from '../../domain/research/reply.ts';
import type { ResearchFailure } from '../../domain/research/contract.ts';
import { newResearchId } from '../../lib/ids.ts';
import { countJobEnd, jobMetrics } from '../../lib/metrics.ts';
import { consumeCredit, lockAccount, refundCredit, type CreditRefusal } from '../billing/credits.ts';
import type { UsageAlertSettings } from '../billing/usage-alerts.ts';
import { recordResearchJob } from './workflow-start-outbox.ts';

/** docs/api.md#compatible-extensions: the same Idempotency-Key and body within 24 h returns the first job. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type Submission =
  /** `isMailQueued`: a usage alert waits in the outbox; nudge it once the transaction has committed. */
  /** `plan`: the account's, for its fairness weight on the research queue. */
  | { outcome: 'accepted'; job: IResearchJob; plan: PlanName; isMailQueued: boolean }
  | { outcome: 'replayed'; job: IResearchJob; plan: PlanName }
  | { outcome: 'refused'; refusal: CreditRefusal }
  | { outcome: 'idempotency_conflict' };

/**
 * Records a research job, the intent to start its workflow, and takes its
 * credit, in one transaction (docs/decisions.md#credits: never more than the limit under
 * any concurrency; docs/decisions.md#an-accepted-job-runs). The account row lock also
 * serialises concurrent requests that share an Idempotency-Key.
 */
export async function submitResearchJob(
  em: EntityManager,
  input: { apiKey: AuthenticatedKey; request: ResearchRequest; idempotencyKey: string | null; requestHash: string; source?: 'api' | 'mcp' },
  now: Date,
  alerts: UsageAlertSettings,
): Promise<Submission> {
  const submission = await em.transactional(async (tx): Promise<Submission> => {
    const account = await lockAccount(tx, input.apiKey.accountId, now);
    if (input.idempotencyKey) {
      const earlier = await tx.findOne(ResearchJob, { account, idempotencyKey: input.idempotencyKey });
      if (earlier && now.getTime() - earlier.submittedAt.getTime() < IDEMPOTENCY_WINDOW_MS) {
        return earlier.requestHash === input.requestHash
          ? { outcome: 'replayed', job: earlier, plan: account.plan }
          : { outcome: 'idempotency_conflict' };
      }
      // An expired key may be used again: the old job lets go of it.
      if (earlier) await tx.nativeUpdate(ResearchJob, { id: earlier.id }, { idempotencyKey: null });
    }
    const researchId = newResearchId();
    const credit = await consumeCredit(tx, account, researchId, alerts);
    if (credit.outcome === 'refused') return credit;
    const job = recordResearchJob(tx, {
      id: researchId,
      accountId: account.id,
      productId: input.apiKey.productId,
      apiKeyId: input.apiKey.keyId,
      request: input.request,
      submittedAt: now,
      idempotencyKey: input.idempotencyKey,
      requestHash: input.requestHash,
      source: input.source,
    });
    return { outcome: 'accepted', job, plan: account.plan, isMailQueued: credit.isMailQueued };
  });
  if (submission.outcome === 'accepted') {
    jobMetrics.accepted.inc();
    jobMetrics.creditsConsumed.inc();
  }
  return submission;
}

const RUNNING = ['queued', 'processing'] as const;

/**
 * Freezes the completed reply as the exact JSON text the status endpoint sends
 * (it never changes again, so reads serve it without parsing); false when the
 * job had already ended (e.g. failed by the deadline).
 */
export async function completeJob(
  em: EntityManager,
  researchId: string,
  reply: StoredResearchReply,
  modelUsage: IResearchJob['modelUsage'],
  now: Date,
): Promise<boolean> {
  const updated = await em.nativeUpdate(
    ResearchJob,
    { id: researchId, status: { $in: [...RUNNING] } },
    { status: 'completed', completedAt: now, completedReply: completedReplyJson(researchId, reply, now), modelUsage },
  );
  if (updated > 0) countJobEnd({ status: 'completed' });
  return updated > 0;
}

export function completedReplyJson(researchId: string, reply: StoredResearchReply, completedAt: Date): string {
  const hasMeta = reply.meta && Object.keys(reply.meta).length > 0;
  return JSON.stringify({
    research_id: researchId,
    status: 'completed',
    completed_at: completedAt.toISOString(),
    data: reply.data,
    ...(hasMeta ? { _meta: reply.meta } : {}),
  });
}

/**
 * Ends a running job `failed` and refunds its credit in the same transaction
 * (docs/api.md#refunds: `internal_error` and `timeout` are refunded). Safe to repeat.
 */
export async function failJob(em: EntityManager, researchId: string, failure: ResearchFailure, now: Date): Promise<boolean> {
  const { hasFailed, isRefunded } = await em.transactional(async (tx) => {
    // The account is locked before the job's row changes: the job-end trigger then writes the job's
    // webhook deliveries, whose key-share lock on the account row, taken first, made two jobs of one
    // account failing at once each wait for the other's lock here (a deadlock, seen in `npm run cluster`).
    const [owner]: Array<{ account_id: number }> = await tx.execute('select account_id from research_job where id = ?', [researchId]);
    if (!owner) return { hasFailed: false, isRefunded: false };
    await lockAccount(tx, owner.account_id, now);
    const updated = await tx.nativeUpdate(
      ResearchJob,
      { id: researchId, status: { $in: [...RUNNING] } },
      { status: 'failed', error: failure, completedAt: now },
    );
    const job = await tx.findOne(ResearchJob, researchId);
    const refunded = job?.status === 'failed' ? await refundCredit(tx, researchId, failure, now) : false;
    return { hasFailed: updated > 0, isRefunded: refunded };
  });
  if (hasFailed) countJobEnd({ status: 'failed', error: failure, isRefunded });
  return hasFailed;
}
