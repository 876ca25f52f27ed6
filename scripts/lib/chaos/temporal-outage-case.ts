import { countWaitingForWorkflow, describeReplies, expectNoneFailed, IN_FLIGHT_LATENCY, measureRelay, seconds, settle, timed, type ChaosCase } from './case-kit.ts';
import { sleep, submit, type Submitted } from './research-client.ts';

/** One POST this often, before, during and after the outage. */
const TRICKLE_INTERVAL_MS = 1_000;
/** The trickle starts this long before Temporal stops and goes on this long after it is back. */
const TRICKLE_MARGIN_MS = 3_000;

/**
 * docs/decisions.md#an-accepted-job-runs, through an outage longer than a
 * caller's patience for one request: Temporal stays down for `longDownMs`
 * (20 s by default) while POSTs keep arriving. With PostgreSQL up every POST
 * is accepted (202); the jobs wait in the workflow-start outbox, reading as
 * `queued`, and the relays start them once Temporal is back. Every job must
 * end `completed`, none failed, none charged twice; the note says how long the
 * relay took after Temporal returned.
 */
export const temporalOutageCase: ChaosCase = {
  id: 8,
  title: 'Temporal down for a long outage under a steady trickle of POSTs',
  peopleNeeded: (settings) => Math.ceil((settings.longDownMs + 2 * TRICKLE_MARGIN_MS) / TRICKLE_INTERVAL_MS) + 15,
  providerLatency: IN_FLIGHT_LATENCY,
  async run(context) {
    const { stack, customer, settings } = context;
    const replies: Submitted[] = [];
    let next = 0;
    let isTrickling = true;
    // Each POST on its own: a slow answer (the API's bounded first try at the
    // workflow start) must not slow the trickle down.
    const inFlight: Promise<void>[] = [];
    const trickle = (async () => {
      while (isTrickling && next < context.people.length) {
        const person = context.people[next++];
        inFlight.push(submit(stack.apiUrl, customer.key, person.email).then((reply) => void replies.push(reply)));
        await sleep(TRICKLE_INTERVAL_MS);
      }
    })();

    await sleep(TRICKLE_MARGIN_MS);
    const stopTook = await timed(() => stack.temporalServer.stop());
    context.log(`Temporal stopped in ${seconds(stopTook)} with ${replies.length} POSTs answered; down for ${seconds(settings.longDownMs)}`);
    await sleep(settings.longDownMs);
    const waiting = await countWaitingForWorkflow(context);
    context.log(`Temporal starting again in ${seconds(await timed(() => stack.temporalServer.start()))}; ${waiting} accepted jobs were waiting for their workflow`);
    const returnedAt = Date.now();
    if (waiting === 0) context.problem('no job waited for its workflow during the outage: the case proved nothing');
    const relayed = measureRelay(context, returnedAt, waiting);
    await sleep(TRICKLE_MARGIN_MS);
    isTrickling = false;
    await trickle;
    await Promise.all(inFlight);
    await relayed;

    const refused = replies.filter((reply) => reply.status !== 202);
    context.log(`${replies.length} POSTs in a trickle across the outage: ${describeReplies(replies)}`);
    if (refused.length > 0) context.problem(`${refused.length} of ${replies.length} POSTs were not accepted, though PostgreSQL was up: ${describeReplies(refused)}`);
    await settle(context, returnedAt);
    await expectNoneFailed(context);
  },
};
