// Records the sample histories in test/histories/ that replay-histories.test.ts
// replays against the current workflow code. Skipped unless asked for:
//
//   RECORD_HISTORIES=1 node_modules/.bin/vitest run test/replay/record-histories.test.ts
//
// Re-record only on purpose (a deliberate, patched() workflow change that old
// runs no longer need to survive): the committed files are the runs in flight
// that the current code must keep replaying. Each job goes through the real API
// and a real worker on a test stack; each case asserts that its history holds
// the path it is named after, so a re-recording cannot silently lose coverage.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

const HISTORIES_DIR = join(import.meta.dirname, '..', 'histories');
/**
 * Appended to every file name, so that a recording of the current shape never
 * overwrites the histories of earlier shapes, which must keep replaying. The
 * next patched() change that alters the commands gets a new suffix.
 * `-one-lookup`: every part in one activity (every part in `lookupParts`, `finishResearch` local).
 */
const RECORDING_SUFFIX = '-one-lookup';

async function runJob(stack: TestStack, key: string, body: Record<string, string>, timeoutMs = 60_000) {
  const accepted = await stack.api.research(key, body);
  expect(accepted.status).toBe(202);
  const researchId: string = accepted.body.research_id;
  const ended = await stack.api.waitForEnd(key, researchId, timeoutMs);
  // The job row ends inside the last activity; the history is complete only once the workflow has closed.
  await stack.temporal.workflow.getHandle(researchId).result();
  const history = await stack.temporal.workflow.getHandle(researchId).fetchHistory();
  return { researchId, reply: ended.body, history };
}

function save(name: string, history: History): void {
  mkdirSync(HISTORIES_DIR, { recursive: true });
  writeFileSync(join(HISTORIES_DIR, `${name}${RECORDING_SUFFIX}.json`), `${historyToJSON(history)}\n`);
}

/** Activity types in the order they were scheduled, local activities (recorded as markers) included. */
function activitiesOf(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled) return [scheduled];
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : null;
    return data ? [String(JSON.parse(Buffer.from(data).toString('utf8')).activity_type)] : [];
  });
}

describe.runIf(process.env.RECORD_HISTORIES === '1')('record sample histories', () => {
  describe('on a healthy stack', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack();
    });
    afterAll(() => stack?.stop());

    it('completed-full-fetch (Scale: every part fetched, AI insights) and completed-cache-hit (the same prospect again)', async () => {
      const { key } = await stack.createCustomer('scale');
      const person = samplePerson(stack, { knownTo: 'both', withPosts: true });
      const first = await runJob(stack, key, { email: person.email });
      expect(first.reply).toMatchObject({ status: 'completed', _meta: { prospect: { from_cache: false }, ai: { generated: true } } });
      // Every part inside lookupParts; startResearch and finishResearch local (markers).
      expect(activitiesOf(first.history)).toEqual(['startResearch', 'lookupParts', 'generateInsights', 'finishResearch']);
      expect(first.reply.data.company.news.length + first.reply.data.decision_makers.length).toBeGreaterThan(0);
      save('completed-full-fetch', first.history);

      const again = await runJob(stack, key, { email: person.email });
      expect(again.reply).toMatchObject({ status: 'completed', _meta: { prospect: { from_cache: true }, company: { from_cache: true } } });
      // A full cache hit is answered inside startResearch, a local activity; older recordings also hold finishResearch.
      expect(activitiesOf(again.history)).toEqual(['startResearch']);
      save('completed-cache-hit', again.history);
    });

    it('completed-company-from-profile: a free-mail address, the company found through the person (planCompany)', async () => {
      const { key } = await stack.createCustomer('growth');
      const person = samplePerson(stack, { knownTo: 'both' }, 3);
      const job = await runJob(stack, key, { email: `${person.firstName}.${person.lastName}.${person.index}@gmail.com`.toLowerCase(), social_url: person.linkedinUrl });
      expect(job.reply).toMatchObject({ status: 'completed', data: { prospect: { name: person.fullName } } });
      // The company is planned inside lookupParts once the person is found.
      expect(activitiesOf(job.history)).toEqual(['startResearch', 'lookupParts', 'generateInsights', 'finishResearch']);
      expect(job.reply.data.company?.name).toBeTruthy();
      save('completed-company-from-profile', job.history);
    });

    it('completed-degraded: the news provider keeps failing, the job completes without news', async () => {
      const { key } = await stack.createCustomer('scale');
      const person = samplePerson(stack, { knownTo: 'both' }, 5);
      stack.providerWorld.setFaults({ 'news.everything': { serverErrorRate: 1 } });
      stack.providerWorld.resetCalls();
      try {
        const job = await runJob(stack, key, { email: person.email }, 90_000);
        expect(job.reply).toMatchObject({ status: 'completed' });
        // The news part failed alone, inside lookupParts, after its own retries; the activity itself succeeded.
        expect((job.history.events ?? []).filter((event) => event.activityTaskFailedEventAttributes)).toEqual([]);
        expect(stack.providerWorld.calls('news.everything')).toBeGreaterThan(1);
        expect(job.reply.data.company.news).toEqual([]);
        save('completed-degraded', job.history);
      } finally {
        stack.providerWorld.setFaults(null);
      }
    }, 120_000);
  });

  describe('past the deadline', () => {
    let stack: TestStack;
    beforeAll(async () => {
      // A 3-second deadline and providers that answer after 10 s: the deadline's cancellation wins.
      stack = await startTestStack({ deadlineMs: 3_000 });
      stack.providerWorld.setLatency({ '*': { meanMs: 10_000 } });
    });
    afterAll(() => stack?.stop());

    it('failed-timeout', async () => {
      const { key } = await stack.createCustomer('growth');
      const job = await runJob(stack, key, { email: samplePerson(stack, { knownTo: 'both' }, 7).email });
      expect(job.reply).toEqual({ research_id: job.researchId, status: 'failed', error: 'timeout' });
      expect(activitiesOf(job.history).at(-1)).toBe('failResearch');
      save('failed-timeout', job.history);
    });
  });

  describe('an unrecoverable step', () => {
    let stack: TestStack;
    beforeAll(async () => {
      // The AI step is the one required step after the fetches: an error that is not
      // AiUnavailable (here a programming error) exhausts its retries and fails the job.
      stack = await startTestStack({
        generator: () => ({
          generate: async () => {
            throw new TypeError("Cannot read properties of undefined (reading 'prospect')");
          },
        }),
      });
    });
    afterAll(() => stack?.stop());

    it('failed-internal-error', async () => {
      const { key } = await stack.createCustomer('growth');
      const job = await runJob(stack, key, { email: samplePerson(stack, { knownTo: 'both' }, 9).email });
      expect(job.reply).toEqual({ research_id: job.researchId, status: 'failed', error: 'internal_error' });
      expect(activitiesOf(job.history).slice(-2)).toEqual(['generateInsights', 'failResearch']);
      save('failed-internal-error', job.history);
    });
  });
});
