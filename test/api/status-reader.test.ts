import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatusPool, type StatusPool } from '../../db/status-pool.ts';
import { revokeApiKey } from '../../services/accounts/api-keys.ts';
import { CompletedReplyCache } from '../../services/research/completed-reply-cache.ts';
import { KeyAndJobStatusReader, type KeyAndJobStatus } from '../../services/research/job-status.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// Status polls that arrive together share one statement (services/research/job-status.ts);
// each must still be answered for its own key and id, by the database.

let stack: TestStack;
let pool: StatusPool;
let statements: number;

beforeAll(async () => {
  stack = await startTestStack();
  pool = createStatusPool(stack.config.databaseUrl, pino({ level: 'silent' }));
  const query = pool.query.bind(pool) as (statement: unknown) => Promise<unknown>;
  pool.query = ((statement: unknown) => {
    statements += 1;
    return query(statement);
  }) as typeof pool.query;
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
});

/** Polls issued in one turn of the event loop, as the API receives them under load. */
async function readTogether(reader: KeyAndJobStatusReader, polls: Array<{ key: string; id: string }>) {
  statements = 0;
  const results = await Promise.all(polls.map((poll) => reader.read(poll.key, poll.id)));
  return { results, statements };
}

const outcome = (result: KeyAndJobStatus) =>
  result === null ? 'invalid_key' : result.job === null ? 'not_found' : `${result.key.accountId}:${result.job.id}:${result.job.status}`;

describe('batched status reads', () => {
  it('answer every poll of a batch for its own key and id, in one statement', async () => {
    const owner = await stack.createCustomer('growth');
    const other = await stack.createCustomer('growth');
    const accepted = await stack.api.research(owner.key, { email: samplePerson(stack, { knownTo: 'both' }, 5).email });
    const completed = await stack.api.waitForEnd(owner.key, accepted.body.research_id);
    const completedId: string = accepted.body.research_id;
    const othersJob = await stack.api.research(other.key, { email: 'nobody-there@nowhere-corp.com' });
    const othersId: string = othersJob.body.research_id;
    const revoked = await stack.createKey(owner.accountId);
    await revokeApiKey(stack.orm.em.fork(), revoked.keyId, new Date());
    const secondKey = await stack.createKey(owner.accountId);

    const polls = [
      { key: owner.key, id: completedId, expected: `${owner.accountId}:${completedId}:completed` },
      { key: secondKey.key, id: completedId, expected: `${owner.accountId}:${completedId}:completed` },
      { key: other.key, id: completedId, expected: 'not_found' },
      { key: revoked.key, id: completedId, expected: 'invalid_key' },
      { key: `svc_live_${'x'.repeat(40)}`, id: completedId, expected: 'invalid_key' },
      { key: owner.key, id: othersId, expected: 'not_found' },
      { key: other.key, id: othersId, expected: new RegExp(`^${other.accountId}:${othersId}:`) },
      { key: owner.key, id: `res_${'B'.repeat(24)}`, expected: 'not_found' },
      { key: owner.key, id: '\u0000', expected: 'not_found' },
      { key: owner.key, id: 'x'.repeat(300), expected: 'not_found' },
    ];
    const reader = new KeyAndJobStatusReader(pool, new CompletedReplyCache(1024 * 1024));
    // Twice: the first batch reads the completed reply from the database, the second from the copy.
    for (const round of ['stored reply', 'copy']) {
      const { results, statements } = await readTogether(reader, polls);
      expect(statements, round).toBe(1);
      polls.forEach((poll, index) => expect(outcome(results[index]), `${round}, poll ${index}`).toMatch(poll.expected));
      for (const index of [0, 1]) expect(JSON.parse(String(results[index]!.job!.completed_reply)), round).toEqual(completed.body);
    }
  });

  it('a key malformed on its face takes no statement; a failed statement fails its whole batch', async () => {
    const reader = new KeyAndJobStatusReader(pool, new CompletedReplyCache(1024 * 1024));
    expect(await readTogether(reader, [{ key: 'not-a-key', id: 'res_x' }])).toEqual({ results: [null], statements: 0 });

    const broken = createStatusPool('postgres://nobody:wrong@127.0.0.1:1/none', pino({ level: 'silent' }));
    const failing = new KeyAndJobStatusReader(broken, new CompletedReplyCache(1024));
    const customer = await stack.createCustomer('growth');
    const outcomes = await Promise.allSettled([failing.read(customer.key, 'res_a'), failing.read(customer.key, 'res_b')]);
    expect(outcomes.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    await broken.end();
  });
});

describe('the completed-reply copy', () => {
  it('keeps the most recently read replies within its byte limit', () => {
    const cache = new CompletedReplyCache(25);
    cache.add('a', '0123456789');
    cache.add('b', '0123456789');
    cache.get('a');
    cache.add('c', '0123456789');
    expect([cache.get('a')?.toString(), cache.get('b'), cache.get('c')?.toString()]).toEqual(['0123456789', undefined, '0123456789']);
    expect(cache.size).toEqual({ replies: 2, bytes: 20 });
    expect(cache.add('d', 'x'.repeat(26)).toString()).toBe('x'.repeat(26));
    expect(cache.get('d')).toBeUndefined();
  });
});
