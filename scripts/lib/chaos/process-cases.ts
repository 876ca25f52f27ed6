import { query } from './invariants.ts';
import { countWaitingForWorkflow, describeReplies, expectInFlight, expectNoneFailed, measureRelay, IN_FLIGHT_LATENCY, seconds, settle, submitJobs, timed, waitForProcessing, type CaseContext, type ChaosCase } from './case-kit.ts';
import { mapLimited, sleep, submit, waitForJobs } from './research-client.ts';
import type { Restartable } from './stack.ts';

/** docs/api.md#job-states + docs/decisions.md#an-accepted-job-runs: a worker crash loses no job; another run of each activity finishes it. */
export const workerKilledCase: ChaosCase = {
  id: 1,
  title: 'worker killed (SIGKILL) mid-job, restarted',
  peopleNeeded: (settings) => settings.jobs,
  providerLatency: IN_FLIGHT_LATENCY,
  async run(context) {
    const ids = await submitJobs(context, context.people);
    const counts = await waitForProcessing(context, Math.ceil(ids.length / 2));
    await sleep(1_000);
    expectInFlight(context, counts, 'SIGKILL the worker');
    await context.stack.worker.kill('SIGKILL');
    const faultAt = Date.now();
    await sleep(2_000);
    context.log(`worker restarted in ${seconds(await timed(() => context.stack.worker.start()))}`);
    await settle(context, faultAt);
    const [row] = await query<{ failed: string }>(context.stack.sql, "select count(*) as failed from research_job where account_id = $1 and status = 'failed'", [context.customer.accountId]);
    if (Number(row.failed) > 0) context.problem(`${row.failed} jobs failed; a worker crash must not fail a job`);
  },
};

/**
 * Restarts a backing service mid-job; meanwhile new POSTs are tried. With
 * PostgreSQL down they are answered 5xx and take nothing; with Temporal down
 * (`isAcceptedDuringOutage`) PostgreSQL can record them, so they are accepted
 * (202), wait in the workflow-start outbox and run once Temporal is back, like
 * every job in flight: none may fail (docs/decisions.md#an-accepted-job-runs).
 */
function backingServiceCase(id: number, title: string, service: (context: CaseContext) => Restartable, options: { isAcceptedDuringOutage: boolean }): ChaosCase {
  return {
    id,
    title,
    peopleNeeded: (settings) => settings.jobs + DURING_OUTAGE_POSTS,
    providerLatency: IN_FLIGHT_LATENCY,
    async run(context) {
      const target = service(context);
      const [before, during] = [context.people.slice(0, -DURING_OUTAGE_POSTS), context.people.slice(-DURING_OUTAGE_POSTS)];
      const ids = await submitJobs(context, before);
      const counts = await waitForProcessing(context, Math.ceil(ids.length / 2));
      await sleep(1_000);
      expectInFlight(context, counts, `stop ${target.name}`);
      const stopTook = await timed(() => target.stop());
      const faultAt = Date.now();
      context.log(`${target.name} stopped in ${seconds(stopTook)}; down for ${seconds(context.settings.downMs)}`);
      const outage = await mapLimited(during, DURING_OUTAGE_POSTS, (person) => submit(context.stack.apiUrl, context.customer.key, person.email));
      context.log(`POSTs while ${target.name} was down: ${describeReplies(outage)}`);
      const accepted = outage.filter((reply) => reply.status === 202).length;
      if (options.isAcceptedDuringOutage && accepted < outage.length) context.problem(`${outage.length - accepted} POSTs while ${target.name} was down were not accepted, though PostgreSQL could record them`);
      if (outage.some((reply) => reply.status !== 202 && reply.status < 500)) context.problem('a POST during the outage got a 4xx; an outage is the server\'s fault (5xx)');
      await sleep(Math.max(0, context.settings.downMs - (Date.now() - faultAt)));
      const waiting = options.isAcceptedDuringOutage ? await countWaitingForWorkflow(context) : 0;
      context.log(`${target.name} started again in ${seconds(await timed(() => target.start()))}${accepted ? `; ${accepted} POSTs were accepted during the outage` : ''}`);
      const returnedAt = Date.now();
      if (options.isAcceptedDuringOutage) await measureRelay(context, returnedAt, waiting);
      await settle(context, returnedAt);
      if (options.isAcceptedDuringOutage) await expectNoneFailed(context);
    },
  };
}

const DURING_OUTAGE_POSTS = 3;

export const temporalRestartCase = backingServiceCase(2, 'Temporal dev server restarted mid-job', (context) => context.stack.temporalServer, { isAcceptedDuringOutage: true });
export const postgresRestartCase = backingServiceCase(3, 'PostgreSQL restarted mid-job', (context) => context.stack.postgres, { isAcceptedDuringOutage: false });

/** docs/api.md#credits-and-plans, docs/api.md#refunds under load: the ledger balances however the worker is restarted. */
export const loadWithWorkerRestartsCase: ChaosCase = {
  id: 7,
  title: 'jobs in flight while the worker restarts twice (SIGKILL, then SIGTERM)',
  peopleNeeded: (settings) => settings.loadJobs,
  providerLatency: IN_FLIGHT_LATENCY,
  async run(context) {
    const { stack, customer } = context;
    const total = context.people.length;
    const submitting = submitJobs(context, context.people, 32, { isLoad: true });
    // First restart while POSTs are still arriving and jobs are running.
    const first = await waitForJobs(stack.sql, customer.accountId, (c) => (c.processing ?? 0) >= Math.min(50, total / 4), 120_000);
    expectInFlight(context, first.counts, 'SIGKILL the worker');
    await stack.worker.kill('SIGKILL');
    await sleep(1_000);
    context.log(`worker restarted in ${seconds(await timed(() => stack.worker.start()))}`);
    const ids = await submitting;
    const submittedAt = Date.now();
    // Second restart, a graceful one (SIGTERM: the worker stops polling and drains for its grace time), mid-way through.
    const second = await waitForJobs(stack.sql, customer.accountId, (c) => (c.completed ?? 0) + (c.failed ?? 0) >= total / 2, 120_000);
    expectInFlight(context, second.counts, 'SIGTERM the worker');
    context.log(`worker stopped (SIGTERM) in ${seconds(await timed(() => stack.worker.stop()))}`);
    context.log(`worker restarted in ${seconds(await timed(() => stack.worker.start()))}`);
    await settle(context, submittedAt);
    const [ledger] = await query<{ used: number; jobs: string; refunds: string }>(
      stack.sql,
      `select (select credits_used from account where id = $1) as used,
              (select count(*) from research_job where account_id = $1) as jobs,
              (select count(*) from credit_ledger_entry where account_id = $1 and kind = 'refund' and used_delta = -1) as refunds`,
      [customer.accountId],
    );
    // A POST answered 500 (workflow not started in time) still recorded its job, failed and refunded.
    const expected = Number(ledger.jobs) - Number(ledger.refunds);
    context.log(`ledger: ${ledger.jobs} accepted (${ids.length} answered 202) − ${ledger.refunds} refunded = ${expected}; credits_used ${ledger.used}`);
    if (ledger.used !== expected) context.problem(`credits_used ${ledger.used} ≠ accepted − refunds = ${expected}`);
  },
};
