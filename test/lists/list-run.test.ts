// List runs end to end against the provider and model stand-ins:
// a 50-row list through a worker SIGKILLed mid-run, the rows in flight
// bounded, the downloads read back; a Cancel; credits running out mid-list.
// Nothing is lost and nothing charged twice.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_ITEMS_IN_FLIGHT } from '../../domain/research/fanout.ts';
import { recordFanoutJob } from '../../services/research/fanout.ts';
import { creditsOf, listCustomer, uploadCsv, waitForListEnd, type ListCustomer } from '../helpers/lists.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let workerProcess: ChildProcess | null = null;
const db = () => stack.orm.em.fork().getConnection();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  mail = await startTestMailSandbox();
  stack = await startTestStack({ withWorker: false, apiEnv: { ...mail.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
}, 120_000);
afterAll(async () => {
  workerProcess?.kill('SIGKILL');
  await stack?.stop();
  await mail?.close();
});

const people = (count: number, offset = 0) => stack.providerWorld.world.samplePeople({}, offset + count).slice(offset);

/** The list's jobs, by row: exactly one per started row. */
async function jobsOf(listId: string): Promise<Array<{ id: string; source: string; source_item: string; status: string }>> {
  return db().execute('select id, source, source_item, status from research_job where source_ref = ? order by source_item::int', [listId]);
}

/** Samples how many of the list's jobs run at once, until stopped. */
function sampleInFlight(listId: string): { stop(): Promise<number> } {
  let isRunning = true;
  let peak = 0;
  const loop = (async () => {
    while (isRunning) {
      const [row] = await db().execute(`select count(*)::int as n from research_job where source_ref = ? and status in ('queued', 'processing')`, [listId]);
      peak = Math.max(peak, row.n);
      await sleep(150);
    }
  })();
  return {
    async stop() {
      isRunning = false;
      await loop;
      return peak;
    },
  };
}

describe('a 50-row list', () => {
  const FORMULAS = ["=cmd|' /C calc'!A0", '+SUM(1,2)', '@HYPERLINK("http://x")', '-2+3'];

  it('runs through a worker SIGKILLed mid-run: every row researched once, charged once; the downloads read back cell by cell', async () => {
    const owner: ListCustomer = await listCustomer(stack, mail, 'growth');
    const rows = people(50).map((person, index) => [person.fullName, person.email, index < FORMULAS.length ? FORMULAS[index]! : `note ${index}`, 'Zoë; "quoted", ünïcode']);
    const csv = ['Name,E-Mail,Notiz,Extra', ...rows.map((cells) => cells.map((cell) => `"${cell.replaceAll('"', '""')}"`).join(','))].join('\r\n');
    const upload = await uploadCsv(owner.client, `\uFEFF${csv}`, 'Messe 2026.csv');
    expect(upload.status).toBe(201);
    expect(upload.body.list.mapping).toMatchObject({ email: 1, prospect_name: 0 });
    expect(upload.body.list.preview).toMatchObject({ totalRows: 50, toResearch: 50, willRun: 50 });
    const listId: string = upload.body.list.id;

    // Slow providers keep rows in flight long enough to kill the worker among them.
    stack.providerWorld.setLatency({ '*': { meanMs: 300 } });
    workerProcess = startWorkerProcess(stack);
    const start = await owner.client.post(`/app/api/lists/${listId}/start`, { expectedRows: 50 });
    expect(start.status).toBe(202);
    const inFlight = sampleInFlight(listId);

    const deadline = Date.now() + 90_000;
    let progress = (await owner.client.get(`/app/api/lists/${listId}`)).body.progress;
    while (progress.done + progress.failed < 8 && Date.now() < deadline) {
      await sleep(300);
      progress = (await owner.client.get(`/app/api/lists/${listId}`)).body.progress;
    }
    expect(progress.done + progress.failed).toBeGreaterThanOrEqual(8);
    expect(progress.remaining).toBeGreaterThan(0);
    expect(progress.etaSeconds).toBeGreaterThan(0);
    workerProcess.kill('SIGKILL');
    await once(workerProcess, 'exit');
    workerProcess = null;
    expect((await owner.client.get(`/app/api/lists/${listId}`)).body.list.status).toBe('running');

    await stack.startWorker();
    const ended = await waitForListEnd(owner.client, listId);
    stack.providerWorld.setLatency(null);
    const peak = await inFlight.stop();
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(LIST_ITEMS_IN_FLIGHT);

    expect(ended.body.list).toMatchObject({ status: 'completed', stoppedReason: null, counts: { total: 50, toRun: 50 } });
    expect(ended.body.progress).toMatchObject({ total: 50, remaining: 0, notCharged: 0, etaSeconds: null });
    expect(ended.body.progress.done + ended.body.progress.failed).toBe(50);
    expect(ended.body.rows).toHaveLength(50);
    expect(ended.body.rows.map((row: { rowNumber: number }) => row.rowNumber)).toEqual(Array.from({ length: 50 }, (_, index) => index + 2));

    // One job per row, from the list; one credit per job, refunds as the API's rules say.
    const jobs = await jobsOf(listId);
    expect(jobs.map((job) => job.source_item)).toEqual(Array.from({ length: 50 }, (_, index) => String(index)));
    expect(jobs.every((job) => job.source === 'list' && ['completed', 'failed'].includes(job.status))).toBe(true);
    expect(ended.body.rows.map((row: { researchId: string }) => row.researchId)).toEqual(jobs.map((job) => job.id));
    const credits = await creditsOf(stack, owner.accountId);
    expect([...credits.consumed].sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(credits.used).toBe(50 - credits.refunded.length);
    expect(credits.refunded.every((id) => jobs.find((job) => job.id === id)?.status === 'failed')).toBe(true);

    // The jobs page marks them as coming from the list.
    const jobsPage = await owner.client.get('/app/api/jobs');
    expect(jobsPage.body.jobs[0]).toMatchObject({ source: 'list', listId, listName: 'Messe 2026' });

    // JSON Lines: each line the job's status reply exactly as GET /research-status answers it.
    const jsonl = await owner.client.download(`/app/api/lists/${listId}/results.jsonl`);
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = jsonl.bytes.toString('utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(50);
    for (const [index, line] of lines.entries()) {
      const status = await fetch(`${stack.apiUrl}/research-status/${jobs[index]!.id}`, { headers: { authorization: `Bearer ${owner.key}` } });
      expect(line).toBe(await status.text());
    }

    // The CSV, read back by the CSV library: input columns first, escaped against CSV injection, then the research.
    const download = await owner.client.download(`/app/api/lists/${listId}/results.csv`);
    expect(download.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(download.headers.get('content-disposition')).toContain('Messe 2026-results.csv');
    const { bytes } = download;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const records: string[][] = parse(bytes, { bom: true, relax_column_count: false });
    const [header, ...body] = records;
    expect(header!.slice(0, 8)).toEqual(['Name', 'E-Mail', 'Notiz', 'Extra', 'Status', 'Note', 'Research ID', 'Name (research)']);
    expect(body).toHaveLength(50);
    for (const [index, record] of body.entries()) {
      const input = rows[index]!;
      expect(record[0]).toBe(input[0]);
      expect(record[1]).toBe(input[1]);
      expect(record[2]).toBe(index < FORMULAS.length ? `'${input[2]}` : input[2]);
      expect(record[3]).toBe(input[3]);
      expect(record[6]).toBe(jobs[index]!.id);
      const reply = JSON.parse(lines[index]!);
      if (reply.status === 'completed') {
        expect(record[4]).toBe('Completed');
        expect(record[7]).toBe(reply.data.prospect.name ?? '');
        const summary: string = reply.data.prospect.summary ?? '';
        expect(record[header!.indexOf('Summary')]).toBe(/^[=+\-@\t\r]/.test(summary) ? `'${summary}` : summary);
      } else {
        expect(record[4]).toMatch(/^Failed/);
      }
    }
  }, 300_000);
});

describe('a list cancelled mid-run', () => {
  it('starts no further row: rows not yet started are not charged; rows in flight finish and are paid for', async () => {
    await stack.startWorker();
    const owner = await listCustomer(stack, mail, 'growth');
    const emails = people(30, 50).map((person) => person.email);
    const { body } = await owner.client.post('/app/api/lists', { pasted: emails.join('\n'), name: 'To cancel' });
    stack.providerWorld.setLatency({ '*': { meanMs: 1_000 } });
    expect((await owner.client.post(`/app/api/lists/${body.list.id}/start`)).status).toBe(202);
    await expect.poll(async () => (await jobsOf(body.list.id)).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);

    const cancel = await owner.client.post(`/app/api/lists/${body.list.id}/cancel`);
    expect([cancel.status, cancel.body.list.status]).toEqual([202, 'cancelling']);
    const startedAtCancel = (await jobsOf(body.list.id)).length;
    const ended = await waitForListEnd(owner.client, body.list.id);
    stack.providerWorld.setLatency(null);

    expect(ended.body.list).toMatchObject({ status: 'cancelled', stoppedReason: 'cancelled' });
    const jobs = await jobsOf(body.list.id);
    expect(jobs.length).toBe(startedAtCancel);
    expect(jobs.length).toBeLessThan(30);
    expect(ended.body.progress).toMatchObject({ remaining: 0, notCharged: 30 - jobs.length });
    expect(ended.body.rows.filter((row: { status: string }) => row.status === 'not_charged')).toHaveLength(30 - jobs.length);
    const credits = await creditsOf(stack, owner.accountId);
    expect([...credits.consumed].sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(credits.used).toBe(jobs.length - credits.refunded.length);
    const again = await owner.client.post(`/app/api/lists/${body.list.id}/cancel`);
    expect([again.status, again.body.error]).toEqual([409, 'list_not_running']);
  }, 180_000);
});

describe('credits running out mid-list', () => {
  it('stops taking rows; the rest are not charged, and the list says why', async () => {
    const owner = await listCustomer(stack, mail, 'starter');
    await db().execute('update account set credits_used = 40 where id = ?', [owner.accountId]);
    const { body } = await owner.client.post('/app/api/lists', { pasted: people(10, 80).map((person) => person.email).join('\n') });
    expect(body.list.preview).toMatchObject({ willRun: 10, creditsLeft: 10 });
    // The worker is down while the list starts; meanwhile the API takes 7 of the 10 credits.
    await stack.stopWorker();
    expect((await owner.client.post(`/app/api/lists/${body.list.id}/start`)).status).toBe(202);
    await db().execute('update account set credits_used = 47 where id = ?', [owner.accountId]);
    await stack.startWorker();

    const ended = await waitForListEnd(owner.client, body.list.id);
    expect(ended.body.list).toMatchObject({ status: 'stopped_no_credits', stoppedReason: 'credits_exhausted' });
    const jobs = await jobsOf(body.list.id);
    expect(jobs).toHaveLength(3);
    expect(ended.body.progress).toMatchObject({ notCharged: 7, remaining: 0 });
    const credits = await creditsOf(stack, owner.accountId);
    expect(credits.consumed.sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(credits.used).toBe(50 - credits.refunded.length);
  }, 180_000);
});

describe('the fan-out step', () => {
  it('names an item\'s job by (list, row): a retried step finds it again and charges nothing more', async () => {
    const owner = await listCustomer(stack, mail, 'growth');
    const { body } = await owner.client.post('/app/api/lists', { pasted: people(1, 95)[0]!.email });
    await stack.stopWorker();
    await owner.client.post(`/app/api/lists/${body.list.id}/start`);
    const [list] = await db().execute('select product_id from prospect_list where id = ?', [body.list.id]);
    const owned = { source: 'list' as const, ref: body.list.id, accountId: owner.accountId, productId: list.product_id, apiKeyId: owner.keyId };
    const item = { key: '0', request: { email: people(1, 95)[0]!.email } };
    const first = await recordFanoutJob(stack.orm.em.fork(), owned, item, new Date(), { publicUrl: '' });
    const second = await recordFanoutJob(stack.orm.em.fork(), owned, item, new Date(), { publicUrl: '' });
    expect(first).toMatchObject({ outcome: 'recorded' });
    expect(second).toEqual(first);
    expect((await creditsOf(stack, owner.accountId)).consumed).toEqual([(first as { researchId: string }).researchId]);
    const [job] = await db().execute('select source, workflow_started_at from research_job where id = ?', [(first as { researchId: string }).researchId]);
    // Marked started: the fan-out starts it as its child, the start relay must not.
    expect(job.source).toBe('list');
    expect(job.workflow_started_at).not.toBeNull();
    await stack.startWorker();
    await waitForListEnd(owner.client, body.list.id);
    expect(await jobsOf(body.list.id)).toHaveLength(1);
  }, 120_000);
});
