import { randomUUID } from 'node:crypto';
import { countWaitingForWorkflow, describeReplies, expectNoneFailed, IN_FLIGHT_LATENCY, measureRelay, settle, type CaseContext, type ChaosCase } from './case-kit.ts';
import { query } from './invariants.ts';
import { mapLimited, submit, waitForJobs, type SandboxPerson, type Submitted } from './research-client.ts';

const MAX_ROUNDS = 2;
/** From this round on, Temporal is frozen during the burst, so the kill surely falls in the window (the case: every recorded job waits). */
const FROZEN_ROUND = 2;

interface BurstRequest {
  person: SandboxPerson;
  idempotencyKey: string;
  reply: Submitted | null;
}

/**
 * docs/decisions.md#an-accepted-job-runs: a POST records the job, the intent to
 * start its workflow and the credit in one transaction, then tries the start;
 * an API killed in between leaves the start to the relay of the other
 * processes (the worker's, while no API runs) and of the restarted API. The
 * burst runs twice: first as is (the kill may catch a start in flight), then
 * with Temporal frozen (SIGSTOP) for the burst, as in a long pause, so that
 * every recorded request waits on its workflow start when the API dies. Every recorded job must then end `completed`,
 * whether its caller got the 202, retried, or gave up; none charged twice.
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
    let waitingInAll = 0;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const burst = context.people.slice(round * burstSize, (round + 1) * burstSize).map((person) => ({ person, idempotencyKey: `chaos-${randomUUID()}`, reply: null as Submitted | null }));
      const before = await recordedJobs(context);
      const isFrozen = round + 1 >= FROZEN_ROUND;
      if (isFrozen) stack.temporalServer.freeze();
      const sending = mapLimited(burst, burst.length, async (request) => {
        request.reply = await submit(stack.apiUrl, customer.key, request.person.email, request.idempotencyKey);
      });
      let returnedAt = Date.now();
      let waitingAtKill = 0;
      try {
        await waitForJobs(stack.sql, customer.accountId, (c) => total(c) >= before.size + burst.length / 3, 30_000);
        await stack.api.kill('SIGKILL');
        waitingAtKill = await countWaitingForWorkflow(context);
      } finally {
        if (isFrozen) stack.temporalServer.thaw();
        returnedAt = Date.now();
      }
      await sending;
      requests.push(...burst);
      const recorded = await recordedJobs(context);
      context.log(`round ${round + 1}: ${burst.length} concurrent POSTs${isFrozen ? ' with Temporal frozen' : ''}, API SIGKILLed mid-burst; replies: ${describeReplies(burst.map((request) => request.reply!))}`);
      context.log(`round ${round + 1}: ${recorded.size - before.size} jobs recorded, ${waitingAtKill} of them waiting for their workflow when the API died (credit taken, workflow not started)`);
      // The worker's relay starts them while no API runs.
      if (waitingAtKill > 0) await measureRelay(context, returnedAt, waitingAtKill, isFrozen ? 'Temporal returned' : 'the API died');
      waitingInAll += waitingAtKill;
      await stack.api.start();
    }
    if (waitingInAll === 0) context.note(`NOT EXERCISED: in ${MAX_ROUNDS} rounds the kill never fell between taking a credit and starting the workflow`);

    // Half the clients whose POST got no answer retry it with the same
    // Idempotency-Key (no second credit); the other half give up, and their
    // jobs run all the same.
    const recordedByKey = new Map([...(await recordedJobs(context))].flatMap(([id, key]) => (key ? [[key, id] as const] : [])));
    const unanswered = requests.filter((request) => request.reply!.status !== 202);
    const retrying = unanswered.filter((_, index) => index % 2 === 0);
    const retries = await mapLimited(retrying, 8, (request) => submit(stack.apiUrl, customer.key, request.person.email, request.idempotencyKey));
    let replayed = 0;
    for (const [index, retry] of retries.entries()) {
      const earlier = recordedByKey.get(retrying[index].idempotencyKey);
      if (retry.status !== 202) context.problem(`retry of an unanswered POST got ${retry.status}: ${JSON.stringify(retry.body)}`);
      else if (earlier && retry.researchId !== earlier) context.problem(`retry with the Idempotency-Key of ${earlier} started another job ${retry.researchId}`);
      else if (earlier) replayed += 1;
    }
    context.log(`${retrying.length} unanswered POSTs retried with their Idempotency-Key: ${replayed} returned the job recorded before the crash, ${retrying.length - replayed} were new`);
    const givenUp = unanswered.filter((_, index) => index % 2 === 1).filter((request) => recordedByKey.has(request.idempotencyKey)).length;
    if (givenUp > 0) context.log(`${givenUp} jobs were recorded for callers who never got an answer nor retried; they must run all the same`);
    const doubled = await query<{ idempotency_key: string }>(stack.sql, 'select idempotency_key from research_job where account_id = $1 and idempotency_key is not null group by idempotency_key having count(*) > 1', [customer.accountId]);
    if (doubled.length > 0) context.problem(`${doubled.length} Idempotency-Keys have more than one job`);

    await settle(context, Date.now());
    await expectNoneFailed(context);
  },
};

/** The account's jobs: research id → Idempotency-Key. */
async function recordedJobs(context: CaseContext): Promise<Map<string, string | null>> {
  const rows = await query<{ id: string; idempotency_key: string | null }>(context.stack.sql, 'select id, idempotency_key from research_job where account_id = $1', [context.customer.accountId]);
  return new Map(rows.map((row) => [row.id, row.idempotency_key]));
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0);
