import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describeReplies, IN_FLIGHT_LATENCY, settle, type CaseContext, type ChaosCase } from './case-kit.ts';
import { query } from './invariants.ts';
import { mapLimited, submit, waitForJobs, type SandboxPerson, type Submitted } from './research-client.ts';

const MAX_ROUNDS = 2;
/** From this round on, Temporal is frozen during the burst, so the kill surely falls in the window. */
const FROZEN_ROUND = 2;

interface BurstRequest {
  person: SandboxPerson;
  idempotencyKey: string;
  reply: Submitted | null;
}

/**
 * DECISIONS.md: a job whose workflow could not be started is refunded. A POST
 * takes the credit and records the job in one transaction, then starts the
 * workflow; an API killed in between leaves a job no workflow will ever end,
 * which the sweeper must fail and refund. The burst is repeated until the kill
 * catches at least one request in that window: first as is, then with Temporal
 * frozen (SIGSTOP) for the burst, as in a long pause, so that every recorded
 * request waits on its workflow start when the API dies.
 */
export const apiKilledCase: ChaosCase = {
  id: 6,
  title: 'API killed (SIGKILL) during a burst of POSTs, restarted',
  peopleNeeded: (settings) => settings.jobs * 2 * MAX_ROUNDS,
  providerLatency: IN_FLIGHT_LATENCY,
  async run(context) {
    const { stack, customer } = context;
    const burstSize = context.settings.jobs * 2;
    const requests: BurstRequest[] = [];
    let orphans: string[] = [];
    for (let round = 0; round < MAX_ROUNDS && orphans.length === 0; round += 1) {
      const burst = context.people.slice(round * burstSize, (round + 1) * burstSize).map((person) => ({ person, idempotencyKey: `chaos-${randomUUID()}`, reply: null as Submitted | null }));
      const before = await recordedJobs(context);
      const isFrozen = round + 1 >= FROZEN_ROUND;
      if (isFrozen) stack.temporalServer.freeze();
      const sending = mapLimited(burst, burst.length, async (request) => {
        request.reply = await submit(stack.apiUrl, customer.key, request.person.email, request.idempotencyKey);
      });
      try {
        await waitForJobs(stack.sql, customer.accountId, (c) => total(c) >= before.size + burst.length / 3, 30_000);
        await stack.api.kill('SIGKILL');
      } finally {
        if (isFrozen) stack.temporalServer.thaw();
      }
      await sending;
      requests.push(...burst);
      context.log(`round ${round + 1}: ${burst.length} concurrent POSTs${isFrozen ? ' with Temporal frozen' : ''}, API SIGKILLed mid-burst; replies: ${describeReplies(burst.map((request) => request.reply!))}`);
      await stack.api.start();
      const recorded = await recordedJobs(context);
      orphans = await withoutWorkflow(context, [...recorded.keys()].filter((id) => !before.has(id)));
      context.log(`round ${round + 1}: ${recorded.size - before.size} jobs recorded, ${orphans.length} of them without a workflow (credit taken, workflow never started)`);
    }
    if (orphans.length === 0) context.note(`NOT EXERCISED: in ${MAX_ROUNDS} rounds the kill never fell between taking a credit and starting the workflow`);

    // Half the clients whose POST got no answer retry it with the same
    // Idempotency-Key (no second credit); the other half give up.
    const recordedByKey = new Map([...(await recordedJobs(context))].flatMap(([id, key]) => (key ? [[key, id] as const] : [])));
    const unanswered = requests.filter((request) => request.reply!.status !== 202).filter((_, index) => index % 2 === 0);
    const retries = await mapLimited(unanswered, 8, (request) => submit(stack.apiUrl, customer.key, request.person.email, request.idempotencyKey));
    let replayed = 0;
    for (const [index, retry] of retries.entries()) {
      const earlier = recordedByKey.get(unanswered[index].idempotencyKey);
      if (retry.status !== 202) context.problem(`retry of an unanswered POST got ${retry.status}: ${JSON.stringify(retry.body)}`);
      else if (earlier && retry.researchId !== earlier) context.problem(`retry with the Idempotency-Key of ${earlier} started another job ${retry.researchId}`);
      else if (earlier) replayed += 1;
    }
    context.log(`${unanswered.length} unanswered POSTs retried with their Idempotency-Key: ${replayed} returned the job recorded before the crash, ${unanswered.length - replayed} were new`);
    const doubled = await query<{ idempotency_key: string }>(stack.sql, 'select idempotency_key from research_job where account_id = $1 and idempotency_key is not null group by idempotency_key having count(*) > 1', [customer.accountId]);
    if (doubled.length > 0) context.problem(`${doubled.length} Idempotency-Keys have more than one job`);
    // A retry of an orphan's POST starts the missing workflow (the API does so on
    // replay), so it runs like any job; orphans nobody retried are the sweeper's.
    const retried = new Set(unanswered.map((request) => recordedByKey.get(request.idempotencyKey)).filter(Boolean));
    const rescued = orphans.filter((id) => retried.has(id));
    const abandoned = orphans.filter((id) => !retried.has(id));
    const stillOrphaned = await withoutWorkflow(context, rescued);
    if (stillOrphaned.length > 0) context.problem(`retried POSTs did not start the missing workflow of ${stillOrphaned.join(', ')}`);
    else if (rescued.length > 0) context.log(`${rescued.length} retried POSTs started the workflow their crashed request never started`);

    await settle(context, Date.now());
    const ended = await query<{ id: string; status: string; error: string | null }>(stack.sql, 'select id, status, error from research_job where id = any($1)', [abandoned]);
    const notFailed = ended.filter((job) => job.status !== 'failed' || job.error !== 'timeout');
    if (notFailed.length > 0) context.problem(`jobs without a workflow that did not end failed/timeout: ${notFailed.map((job) => `${job.id} ${job.status}`).join(', ')}`);
    else if (abandoned.length > 0) context.log(`all ${abandoned.length} jobs left without a workflow ended failed/timeout (refund checked below)`);
  },
};

/** The account's jobs: research id → Idempotency-Key. */
async function recordedJobs(context: CaseContext): Promise<Map<string, string | null>> {
  const rows = await query<{ id: string; idempotency_key: string | null }>(context.stack.sql, 'select id, idempotency_key from research_job where account_id = $1', [context.customer.accountId]);
  return new Map(rows.map((row) => [row.id, row.idempotency_key]));
}

async function withoutWorkflow(context: CaseContext, ids: string[]): Promise<string[]> {
  const found = await mapLimited(ids, 8, async (id) => {
    try {
      await context.stack.temporal.workflow.getHandle(id).describe();
      return null;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return id;
      throw error;
    }
  });
  return found.filter((id): id is string => id !== null);
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0);
