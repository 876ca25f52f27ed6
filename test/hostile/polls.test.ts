import { randomBytes, randomInt } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { MikroORM } from '@mikro-orm/postgresql';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { JobEndNotifications } from '../../db/job-end-notifications.ts';
import { createStatusPool, type StatusPool } from '../../db/status-pool.ts';
import { CompletedReplyCache } from '../../services/research/completed-reply-cache.ts';
import { KeyAndJobStatusReader } from '../../services/research/job-status.ts';
import { KeyLastUse } from '../../services/accounts/key-last-use.ts';
import { ormConfig } from '../../db/orm.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/decisions.md#error-bodies: an unknown id, a malformed id and an id of another
// account give the same 404, by the same code path, so polling cannot tell
// whether someone else's job exists.

const POLLS = Number(process.env.HOSTILE_POLLS ?? 10_000);
const IN_FLIGHT = 32;
const TIMING_SAMPLES = 300;

let stack: TestStack;
let caller: { key: string };
let othersIds: string[];

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  caller = await stack.createCustomer('scale');
  const other = await stack.createCustomer('scale');
  othersIds = [];
  for (let index = 0; index < 5; index += 1) {
    const reply = await stack.api.research(other.key, { email: `poll-target-${index}@nowhere-corp.com` });
    othersIds.push(reply.body.research_id);
  }
});
afterAll(() => stack?.stop());

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (length: number) => Array.from({ length }, () => BASE62[randomInt(62)]).join('');

/**
 * Encoded as one path segment. A segment of only `.` or `..` cannot be sent at
 * all: URL parsers resolve it away, `%2E` forms included (WHATWG URL), and the
 * request reaches another path. Such an id gets a letter in front.
 */
const asSegment = (text: string) => (/^\.{1,2}$/.test(text) ? `x${text}` : encodeURIComponent(text));

/** One hostile id, as a single encoded path segment. */
function randomId(index: number): string {
  switch (index % 10) {
    case 0:
      return othersIds[index % othersIds.length]; // another account's real job
    case 1:
      return asSegment(randomBytes(randomInt(1, 40)).toString('latin1')); // arbitrary bytes as text
    case 2:
      return asSegment(String.fromCodePoint(...Array.from({ length: randomInt(1, 12) }, () => randomInt(0x20, 0x2fff))));
    case 3:
      return `res_${base62(randomInt(300, 3000))}`; // longer than the column
    case 4:
      return ['%00', 'res_%00x', '%E0%A4%A', '%', '%zz', '..%2F..%2Fetc%2Fpasswd', "'%20or%201=1--", '%F0%9F%98%80', 'res_%C0%80', 'res_%2e%2e'][randomInt(10)];
    default:
      return `res_${base62(24)}`; // well-formed and unknown
  }
}

describe(`${POLLS.toLocaleString('en')} polls of random ids`, () => {
  it('are all 404 not_found with one identical body', async () => {
    const statuses = new Map<number, number>();
    const bodies = new Map<string, string>();
    let next = 0;
    async function pollLoop() {
      while (next < POLLS) {
        const id = randomId(next++);
        const response = await fetch(`${stack.apiUrl}/research-status/${id}`, { headers: { authorization: `Bearer ${caller.key}` } });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        bodies.set(await response.text(), id);
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, pollLoop));
    expect(Object.fromEntries(statuses)).toEqual({ 404: POLLS });
    expect([...bodies.keys()], JSON.stringify([...bodies])).toEqual([JSON.stringify({ error: 'not_found', message: 'No research job with this id.' })]);
  }, 300_000);
});

describe('unknown ids and ids of another account', () => {
  let api: { url: string; server: Server; orm: MikroORM; statusPool: StatusPool };
  const queries: string[] = [];

  beforeAll(async () => {
    // The API as production runs it, on an ORM and a status pool that report every SQL statement.
    const orm = await MikroORM.init({ ...ormConfig(stack.config.databaseUrl, 4), debug: ['query'], colors: false, logger: (message) => queries.push(message) });
    const logger = pino({ level: 'silent' });
    const statusPool = createStatusPool(stack.config.databaseUrl, logger);
    const query = statusPool.query.bind(statusPool) as (statement: { text: string; values: unknown[] }) => Promise<unknown>;
    statusPool.query = ((statement: { text: string; values: unknown[] }) => {
      queries.push(`${statement.text} ${JSON.stringify(statement.values)}`);
      return query(statement);
    }) as typeof statusPool.query;
    const app = createApp({
      orm,
      statusReader: new KeyAndJobStatusReader(statusPool, new CompletedReplyCache(1024 * 1024)),
      jobEnds: new JobEndNotifications(stack.config.databaseUrl, logger), // not started: these tests send no ?wait
      temporal: stack.temporal, config: stack.config, logger, clock: () => new Date(), keyLastUse: new KeyLastUse(() => new Date()), publicUrl: 'http://127.0.0.1:3000', billing: null });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    api = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, orm, statusPool };
  });
  afterAll(async () => {
    api.server.closeAllConnections();
    await new Promise((resolve) => api.server.close(resolve));
    await api.statusPool.end();
    await api.orm.close();
  });

  async function poll(id: string): Promise<{ ms: number; queries: number; status: number; body: string }> {
    const before = queries.length;
    const started = performance.now();
    const response = await fetch(`${api.url}/research-status/${id}`, { headers: { authorization: `Bearer ${caller.key}` } });
    const body = await response.text();
    return { ms: performance.now() - started, queries: queries.length - before, status: response.status, body };
  }

  it('take the same code path: the same SQL statements, one reply; medians are printed', async () => {
    const unknown: Awaited<ReturnType<typeof poll>>[] = [];
    const foreign: Awaited<ReturnType<typeof poll>>[] = [];
    for (let round = 0; round < 10; round += 1) await poll(`res_${base62(24)}`); // warm-up
    for (let index = 0; index < TIMING_SAMPLES; index += 1) {
      // Interleaved, so that drift (GC, other test files on the two cores) hits both alike.
      unknown.push(await poll(`res_${base62(24)}`));
      foreign.push(await poll(othersIds[index % othersIds.length]));
    }
    for (const sample of [...unknown, ...foreign]) expect([sample.status, sample.body]).toEqual([404, unknown[0].body]);
    expect(new Set([...unknown, ...foreign].map((sample) => sample.queries))).toEqual(new Set([unknown[0].queries]));

    // The statements themselves, with the ids taken out, are the same.
    const shapeOf = async (id: string) => {
      const before = queries.length;
      await poll(id);
      return queries.slice(before).map((line) => line.replace(/(['"])res_[^'"]*\1/g, '<id>').replace(/\[took [^\]]*\]/, '').replace(/\d+ ms/g, ''));
    };
    expect(await shapeOf(othersIds[0])).toEqual(await shapeOf(`res_${base62(24)}`));

    const stats = (samples: { ms: number }[]) => {
      const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2);
      return `median ${at(0.5)} ms, p90 ${at(0.9)} ms`;
    };
    process.stdout.write(
      `[timing] ${TIMING_SAMPLES} polls each, ${unknown[0].queries} SQL statements per poll: unknown ids ${stats(unknown)}; ` +
        `other account's ids ${stats(foreign)}\n`,
    );
  }, 120_000);
});
