import { WorkflowNotFoundError } from '@temporalio/client';
import { query } from './invariants.ts';
import { formatCounts, isSettled, mapLimited, submit, waitForJobs, type Customer, type SandboxPerson, type Submitted } from './research-client.ts';
import type { ChaosStack } from './stack.ts';

export interface ChaosSettings {
  /** Jobs per case for cases 1–5 (case 6 bursts twice as many). */
  jobs: number;
  /** Jobs in flight for case 7. */
  loadJobs: number;
  deadlineMs: number;
  backstopGraceMs: number;
  sweepIntervalMs: number;
  /** How long a restarted PostgreSQL or Temporal stays down. */
  downMs: number;
  /** How long Temporal stays down in the long outage (case 8). */
  longDownMs: number;
}

export interface CaseContext {
  stack: ChaosStack;
  customer: Customer;
  settings: ChaosSettings;
  /** People no other case uses. */
  people: SandboxPerson[];
  log(line: string): void;
  /** A promise the case found broken; the case fails. */
  problem(line: string): void;
  /** Something worth knowing that breaks no promise (printed with the verdict). */
  note(line: string): void;
}

export interface ChaosCase {
  id: number;
  title: string;
  /** How many sandbox people the case needs. */
  peopleNeeded(settings: ChaosSettings): number;
  /** Sandbox provider latency while the case runs (slow enough to keep jobs in flight during a fault). */
  providerLatency?: { meanMs: number; jitterMs: number };
  run(context: CaseContext): Promise<void>;
}

/** Latency that keeps a job in flight for several seconds, so a fault lands mid-job. */
export const IN_FLIGHT_LATENCY = { meanMs: 900, jitterMs: 400 };

/**
 * Submits one job per person; every POST is expected to be accepted. Under
 * load (`isLoad`) a 500 is allowed: the workflow could not be started in time,
 * and the job is failed and refunded (docs/decisions.md#refunds), which the checks verify.
 */
export async function submitJobs(context: CaseContext, people: readonly SandboxPerson[], concurrency = 16, options: { isLoad?: boolean } = {}): Promise<string[]> {
  const started = Date.now();
  const replies = await mapLimited(people, concurrency, (person) => submit(context.stack.apiUrl, context.customer.key, person.email));
  const refused = replies.filter((reply) => reply.status !== 202);
  const allowed = refused.filter((reply) => options.isLoad && reply.status === 500);
  if (allowed.length > 0) context.note(`${allowed.length} of ${people.length} POSTs under load answered 500: ${describeReplies(allowed)}`);
  const broken = refused.filter((reply) => !allowed.includes(reply));
  if (broken.length > 0) context.problem(`${broken.length} of ${people.length} POSTs were not accepted: ${describeReplies(broken)}`);
  context.log(`submitted ${people.length} jobs in ${seconds(Date.now() - started)}`);
  return replies.flatMap((reply) => (reply.researchId ? [reply.researchId] : []));
}

/** Waits until at least `count` jobs of the account are `processing` (a fault then hits work in flight). */
export async function waitForProcessing(context: CaseContext, count: number): Promise<Record<string, number>> {
  const { counts, isMet } = await waitForJobs(context.stack.sql, context.customer.accountId, (c) => (c.processing ?? 0) >= count, 60_000);
  if (!isMet) context.log(`only ${formatCounts(counts)} after 60 s; going on`);
  return counts;
}

/** The fault must hit jobs in flight, or the case proves nothing. */
export function expectInFlight(context: CaseContext, counts: Record<string, number>, fault: string): void {
  context.log(`${fault} with ${formatCounts(counts)}`);
  if (!counts.processing && !counts.queued) context.problem(`${fault} hit no job in flight (${formatCounts(counts)}): the case proved nothing`);
}

/**
 * Waits until no job of the account is `queued`/`processing`. The budget is
 * what the system promises: the workflow's own deadline, then the backstop
 * grace and one sweep interval for jobs whose workflow vanished, plus slack
 * for a loaded machine.
 */
export async function settle(context: CaseContext, sinceMs: number): Promise<void> {
  const { deadlineMs, backstopGraceMs, sweepIntervalMs } = context.settings;
  const budgetMs = deadlineMs + backstopGraceMs + sweepIntervalMs + SETTLE_SLACK_MS;
  const remainingMs = Math.max(5_000, sinceMs + budgetMs - Date.now());
  const { counts, isMet } = await waitForJobs(context.stack.sql, context.customer.accountId, isSettled, remainingMs, (now) =>
    context.log(`… ${formatCounts(now)}`),
  );
  const took = Date.now() - sinceMs;
  if (isMet) context.log(`settled ${seconds(took)} after the fault/last submission: ${formatCounts(counts)}`);
  else context.problem(`jobs stuck ${seconds(took)} after the fault/last submission (budget ${seconds(budgetMs)}): ${formatCounts(counts)}; their workflows: ${await stuckWorkflows(context)}`);
}

/** Why jobs are stuck, from their workflows' states (e.g. `RUNNING 180, TIMED_OUT 22`). */
async function stuckWorkflows(context: CaseContext): Promise<string> {
  const { rows } = await context.stack.sql.query<{ id: string }>(
    "select id from research_job where account_id = $1 and status in ('queued', 'processing') limit 100",
    [context.customer.accountId],
  );
  const states = await mapLimited(rows, 8, async ({ id }) => {
    try {
      return (await context.stack.temporal.workflow.getHandle(id).describe()).status.name;
    } catch (error) {
      return error instanceof WorkflowNotFoundError ? 'NOT_FOUND' : 'UNKNOWN';
    }
  });
  const byState = new Map<string, number>();
  for (const state of states) byState.set(state, (byState.get(state) ?? 0) + 1);
  return [...byState].map(([state, count]) => `${state} ${count}`).join(', ') + (rows.length === 100 ? ' (of the first 100)' : '');
}

const SETTLE_SLACK_MS = 30_000;

/**
 * docs/decisions.md#an-accepted-job-runs: where the fault left PostgreSQL up, a
 * job accepted (credit taken) must end `completed`; one that failed broke
 * that promise, refund or not.
 */
export async function expectNoneFailed(context: CaseContext): Promise<void> {
  const failed = await query<{ id: string; error: string | null }>(context.stack.sql, "select id, error from research_job where account_id = $1 and status = 'failed'", [context.customer.accountId]);
  if (failed.length > 0) {
    context.problem(`${failed.length} accepted jobs failed instead of running: ${failed.slice(0, 5).map((job) => `${job.id} ${job.error}`).join(', ')}${failed.length > 5 ? ', …' : ''}`);
  }
}

/** The account's jobs still waiting in the workflow-start outbox (services/research/workflow-start-outbox.ts). */
export async function countWaitingForWorkflow(context: CaseContext): Promise<number> {
  const [row] = await query<{ count: string }>(
    context.stack.sql,
    "select count(*) from research_job where account_id = $1 and status = 'queued' and workflow_started_at is null",
    [context.customer.accountId],
  );
  return Number(row.count);
}

/**
 * Measures the relay (services/research/workflow-start-relay.ts): how long after the
 * fault ended (`since`: Temporal returned, or the API died) every job that
 * waited for its workflow had one. Printed as a note with the verdict.
 */
export async function measureRelay(context: CaseContext, since: number, waitingBefore: number, after = 'Temporal returned'): Promise<void> {
  const deadline = Date.now() + context.settings.deadlineMs;
  let waiting = await countWaitingForWorkflow(context);
  while (waiting > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    waiting = await countWaitingForWorkflow(context);
  }
  const took = Date.now() - since;
  if (waiting > 0) context.problem(`${waiting} accepted jobs still had no workflow ${seconds(took)} after ${after}`);
  else context.note(`relay: the workflows of the ${waitingBefore} waiting jobs were all started ${seconds(took)} after ${after}`);
}

export function describeReplies(replies: readonly Submitted[]): string {
  const byOutcome = new Map<string, number>();
  for (const reply of replies) {
    const outcome = reply.status === 0 ? `no answer (${reply.error})` : `${reply.status} ${(reply.body as { error?: string } | null)?.error ?? ''}`.trim();
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
  }
  return [...byOutcome].map(([outcome, count]) => `${count}× ${outcome}`).join(', ');
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function timed(what: () => Promise<void>): Promise<number> {
  const started = Date.now();
  await what();
  return Date.now() - started;
}
