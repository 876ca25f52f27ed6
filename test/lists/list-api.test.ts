// The Lists API's answers to bad input: each one a
// clear message under its own code, and nothing charged or started. No
// worker runs here: a started list stays running, which the plan limit needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { creditsOf, listCustomer, uploadCsv, type ListCustomer } from '../helpers/lists.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let owner: ListCustomer;
const em = () => stack.orm.em.fork().getConnection();

const addresses = (count: number) => Array.from({ length: count }, (_, index) => samplePerson(stack, { knownTo: 'both' }, index).email);
const csvOf = (emails: string[]) => ['Name;E-Mail', ...emails.map((email, index) => `Person ${index};${email}`)].join('\n');

beforeAll(async () => {
  mail = await startTestMailSandbox();
  stack = await startTestStack({ withWorker: false, apiEnv: { ...mail.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
  owner = await listCustomer(stack, mail, 'growth');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await mail?.close();
});

describe('uploading a list', () => {
  it('keeps a draft with the columns guessed and the preview against the credits left', async () => {
    const upload = await uploadCsv(owner.client, csvOf(addresses(3)), 'Fair attendees.csv');
    expect(upload.status).toBe(201);
    expect(upload.body.list).toMatchObject({
      name: 'Fair attendees', status: 'draft', apiKeyId: owner.keyId, headers: ['Name', 'E-Mail'],
      mapping: { email: 1, prospect_name: 0 }, skipFlagged: false, mappingError: null,
    });
    expect(upload.body.list.preview).toMatchObject({ totalRows: 3, valid: 3, willRun: 3, creditsLeft: 200 });
    expect(upload.body.list.id).toMatch(/^lst_[0-9A-Za-z]{24}$/);
    expect(upload.body.list.sampleRows).toEqual([['Person 0', expect.stringContaining('@')], ['Person 1', expect.any(String)], ['Person 2', expect.any(String)]]);
  });

  it('takes pasted addresses, one per line', async () => {
    const pasted = await owner.client.post('/app/api/lists', { pasted: `${addresses(2).join('\n')}\nnot-an-address\n` });
    expect(pasted.status).toBe(201);
    expect(pasted.body.list.preview).toMatchObject({ totalRows: 3, valid: 2, invalid: 1, willRun: 2 });
  });

  it.each([
    ['a workbook', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), 'binary_file', /not a CSV/],
    ['an empty file', Buffer.alloc(0), 'empty_file', /empty/],
    ['a header without rows', Buffer.from('email\n'), 'empty_file', /no prospects/],
    ['Windows-1252 text', Buffer.concat([Buffer.from('email\nj\xe9r\xf4me@example.com\n', 'latin1')]), 'mixed_encoding', /not UTF-8/],
  ])('refuses %s with a clear message', async (_what, bytes, reason, message) => {
    const reply = await uploadCsv(owner.client, bytes);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'list_file_invalid', reason });
    expect(reply.body.message).toMatch(message);
  });

  it('refuses a file over 2 MiB with 413', async () => {
    const reply = await uploadCsv(owner.client, Buffer.alloc(2 * 1024 * 1024 + 10, 'a'));
    expect([reply.status, reply.body.error]).toEqual([413, 'payload_too_large']);
  });

  it('says when no column holds the addresses, and refuses to start it', async () => {
    const upload = await uploadCsv(owner.client, 'Name,Company\nAda,Acme\nBob,Initech\n');
    expect(upload.status).toBe(201);
    expect(upload.body.list.preview).toBeNull();
    expect(upload.body.list.mappingError).toMatch(/e-mail column/);
    const start = await owner.client.post(`/app/api/lists/${upload.body.list.id}/start`);
    expect([start.status, start.body.error]).toEqual([400, 'list_no_email_column']);
  });

  it('refuses a mapping outside the file and an unknown key, naming the field', async () => {
    const { body } = await uploadCsv(owner.client, csvOf(addresses(1)));
    const outside = await owner.client.call('PATCH', `/app/api/lists/${body.list.id}`, { mapping: { email: 7 } });
    expect([outside.status, outside.body.error]).toEqual([400, 'invalid_request']);
    expect(outside.body.fields).toHaveProperty(['mapping.email']);
    const key = await owner.client.call('PATCH', `/app/api/lists/${body.list.id}`, { apiKeyId: 999_999 });
    expect([key.status, key.body.error]).toEqual([400, 'invalid_request']);
    const remapped = await owner.client.call('PATCH', `/app/api/lists/${body.list.id}`, { mapping: { email: 1 }, skipFlagged: true });
    expect(remapped.status).toBe(200);
    expect(remapped.body.list).toMatchObject({ mapping: { email: 1 }, skipFlagged: true });
  });

  it("answers 404 for another account's list, as for an unknown one", async () => {
    const { body } = await uploadCsv(owner.client, csvOf(addresses(1)));
    const other = await listCustomer(stack, mail, 'growth');
    for (const path of [`/app/api/lists/${body.list.id}`, `/app/api/lists/${body.list.id}/results.csv`, '/app/api/lists/lst_000000000000000000000000', '/app/api/lists/nonsense']) {
      const reply = await other.client.get(path);
      expect([reply.status, reply.body.error], path).toEqual([404, 'not_found']);
    }
    const start = await other.client.post(`/app/api/lists/${body.list.id}/start`);
    expect(start.status).toBe(404);
  });
});

describe('starting a list', () => {
  it('needs a key with a product context', async () => {
    const keyless = await listCustomer(stack, mail, 'starter');
    await em().execute('update api_key set revoked_at = now() where account_id = ?', [keyless.accountId]);
    const { body } = await uploadCsv(keyless.client, csvOf(addresses(1)));
    expect(body.list.apiKeyId).toBeNull();
    const start = await keyless.client.post(`/app/api/lists/${body.list.id}/start`);
    expect([start.status, start.body.error]).toEqual([400, 'api_key_required']);
    expect((await creditsOf(stack, keyless.accountId)).used).toBe(0);
  });

  it('refuses a list of only invalid rows, and an account without credits', async () => {
    const invalid = await owner.client.post('/app/api/lists', { pasted: Array.from({ length: 1000 }, (_, i) => `nobody-${i}`).join('\n') });
    expect(invalid.body.list.preview).toMatchObject({ totalRows: 1000, invalid: 1000, willRun: 0 });
    const start = await owner.client.post(`/app/api/lists/${invalid.body.list.id}/start`);
    expect([start.status, start.body.error]).toEqual([400, 'list_nothing_to_run']);

    const broke = await listCustomer(stack, mail, 'free');
    await em().execute('update account set credits_used = credit_limit where id = ?', [broke.accountId]);
    const { body } = await uploadCsv(broke.client, csvOf(addresses(2)));
    const refused = await broke.client.post(`/app/api/lists/${body.list.id}/start`);
    expect([refused.status, refused.body.error]).toEqual([429, 'trial_limit_reached']);
    expect(refused.body.message).toMatch(/Upgrade/);
  });

  it('runs the first rows that fit the credits left, and refuses when fewer fit than the page showed', async () => {
    const starter = await listCustomer(stack, mail, 'starter');
    await em().execute('update account set credits_used = 47 where id = ?', [starter.accountId]);
    const { body } = await uploadCsv(starter.client, csvOf(addresses(5)));
    expect(body.list.preview).toMatchObject({ toResearch: 5, willRun: 3, creditsLeft: 3, isCutByCredits: true });
    const tooMany = await starter.client.post(`/app/api/lists/${body.list.id}/start`, { expectedRows: 5 });
    expect([tooMany.status, tooMany.body.error]).toEqual([409, 'list_credits_changed']);
    const start = await starter.client.post(`/app/api/lists/${body.list.id}/start`, { expectedRows: 3 });
    expect(start.status).toBe(202);
    expect(start.body.list).toMatchObject({ status: 'running', counts: { total: 5, toRun: 3 } });
    const rows: Array<{ status: string; reason: string | null }> = await em().execute('select status, reason from prospect_list_row where list_id = ? order by position', [body.list.id]);
    expect(rows.map((row) => row.status)).toEqual(['pending', 'pending', 'pending', 'skipped', 'skipped']);
    expect(rows[4]!.reason).toMatch(/credits left/);
    // Credits are taken as rows start, not at the start of the list.
    expect((await creditsOf(stack, starter.accountId)).used).toBe(47);

    const again = await starter.client.post(`/app/api/lists/${body.list.id}/start`);
    expect([again.status, again.body.error]).toEqual([409, 'list_not_draft']);
    const patch = await starter.client.call('PATCH', `/app/api/lists/${body.list.id}`, { skipFlagged: true });
    expect([patch.status, patch.body.error]).toEqual([409, 'list_not_draft']);

    // One running list at a time on Starter: the next ones wait their turn, rows written, in the order started.
    const second = await uploadCsv(starter.client, csvOf(addresses(1)));
    const queued = await starter.client.post(`/app/api/lists/${second.body.list.id}/start`);
    expect(queued.status).toBe(202);
    expect(queued.body.list).toMatchObject({ status: 'queued', queuePlace: 1, startedAt: null, counts: { toRun: 1 } });
    const third = await uploadCsv(starter.client, csvOf(addresses(2)));
    expect((await starter.client.post(`/app/api/lists/${third.body.list.id}/start`)).body.list).toMatchObject({ status: 'queued', queuePlace: 2 });
    const listed = await starter.client.get('/app/api/lists');
    expect(listed.body.limits).toMatchObject({ running: 1, queued: 2, maxRunning: 1, plan: 'starter', creditsLeft: 3 });
    expect(listed.body.lists.map((list: { id: string; queuePlace: number | null }) => [list.id, list.queuePlace])).toEqual([
      [third.body.list.id, 2], [second.body.list.id, 1], [body.list.id, null],
    ]);
    // A queued list's workflow is not started: the running one's end makes room (test/lists/list-queue.test.ts).
    const [secondRow] = await em().execute('select workflow_started_at, queued_at from prospect_list where id = ?', [second.body.list.id]);
    expect(secondRow.workflow_started_at).toBeNull();
    expect(secondRow.queued_at).not.toBeNull();

    // Cancelling a queued list ends it at once, nothing charged; the one behind it moves up.
    const cancel = await starter.client.post(`/app/api/lists/${second.body.list.id}/cancel`);
    expect([cancel.status, cancel.body.list.status]).toEqual([202, 'cancelled']);
    expect(await em().execute('select status from prospect_list_row where list_id = ?', [second.body.list.id])).toEqual([{ status: 'not_charged' }]);
    expect((await starter.client.get(`/app/api/lists/${third.body.list.id}`)).body.list).toMatchObject({ status: 'queued', queuePlace: 1 });
  });

  it('lets Growth run three lists at once; the fourth waits its turn', async () => {
    const growth = await listCustomer(stack, mail, 'growth');
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push((await uploadCsv(growth.client, csvOf(addresses(1)))).body.list.id);
    for (const id of ids.slice(0, 3)) expect((await growth.client.post(`/app/api/lists/${id}/start`)).body.list.status).toBe('running');
    const fourth = await growth.client.post(`/app/api/lists/${ids[3]}/start`);
    expect([fourth.status, fourth.body.list.status, fourth.body.list.queuePlace]).toEqual([202, 'queued', 1]);
  });

  it('deletes a draft, but not a started list; a draft cannot be cancelled', async () => {
    const { body } = await uploadCsv(owner.client, csvOf(addresses(1)));
    const cancel = await owner.client.post(`/app/api/lists/${body.list.id}/cancel`);
    expect([cancel.status, cancel.body.error]).toEqual([409, 'list_not_running']);
    expect((await owner.client.call('DELETE', `/app/api/lists/${body.list.id}`)).status).toBe(204);
    expect((await owner.client.get(`/app/api/lists/${body.list.id}`)).status).toBe(404);
  });
});

// What the page shows of a list's cells, through HTTP on a list that stays running (no worker here).
describe('a list with a blank line, an internationalised domain and empty cells', () => {
  it('skips the blank line, shows the domain in its own letters, makes no time guess and quotes every cell of the download', async () => {
    const kim = addresses(1)[0]!;
    const csv = `Name,E-Mail,Firma\r\nMaria Müller,maria@müller-gmbh.de,\r\n,,\r\nKim,${kim},Acme\r\nKein,keine-adresse,\r\n`;
    const { body } = await uploadCsv(owner.client, csv, 'Blank line.csv');
    const listId: string = body.list.id;
    expect(body.list.counts.total).toBe(3);
    expect(body.list.preview).toMatchObject({ totalRows: 3, valid: 2, invalid: 1, willRun: 2 });
    expect(body.list.preview.rows.map((row: { rowNumber: number; email: string | null; shownEmail: string }) => [row.rowNumber, row.email, row.shownEmail])).toEqual([
      [2, 'maria@xn--mller-gmbh-9db.de', 'maria@müller-gmbh.de'],
      [4, kim, kim],
      [5, null, 'keine-adresse'],
    ]);

    const start = await owner.client.post(`/app/api/lists/${listId}/start`, { expectedRows: 2 });
    expect(start.status).toBe(202);
    expect(start.body.list.counts).toMatchObject({ total: 3, toRun: 2 });
    const stored: Array<{ position: number; row_number: number; status: string; request: { email: string } | null }> = await em().execute(
      'select position, row_number, status, request from prospect_list_row where list_id = ? order by position',
      [listId],
    );
    expect(stored.map((row) => [row.position, row.row_number, row.status, row.request?.email ?? null])).toEqual([
      [0, 2, 'pending', 'maria@xn--mller-gmbh-9db.de'],
      [2, 4, 'pending', kim],
      [3, 5, 'skipped', null],
    ]);

    const detail = await owner.client.get(`/app/api/lists/${listId}`);
    expect(detail.body.rows.map((row: { rowNumber: number; email: string; shownEmail: string }) => [row.rowNumber, row.email, row.shownEmail])).toEqual([
      [2, 'maria@xn--mller-gmbh-9db.de', 'maria@müller-gmbh.de'],
      [4, kim, kim],
    ]);
    // No row of this list has finished: no time is guessed from other jobs.
    expect(detail.body.progress).toMatchObject({ remaining: 2, etaSeconds: null });
    const listed = await owner.client.get('/app/api/lists');
    expect(listed.body.lists.find((list: { id: string }) => list.id === listId).counts).toMatchObject({ total: 3, toRun: 2 });

    const { bytes } = await owner.client.download(`/app/api/lists/${listId}/results.csv`);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const records = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(records.pop()).toBe('');
    expect(records).toHaveLength(4);
    for (const record of records) expect(record).toMatch(/^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*$/);
    expect(records[1]).toMatch(/^"Maria Müller","maria@müller-gmbh\.de","","Waiting",""/);
    expect(records[3]).toMatch(/^"Kein","keine-adresse","","Skipped","Invalid address: no @ in ""keine-adresse""\.",""/);
  });
});
