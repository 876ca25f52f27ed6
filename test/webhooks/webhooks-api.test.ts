import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { WEBHOOK_TEST_ENV } from '../helpers/webhook-delivery.ts';

// The Webhooks page's JSON API: deliveries page by page and by status, and 404 for what is not the account's.
let stack: TestStack;
let mail: TestMailSandbox;
let alice: DashboardClient;
let bob: DashboardClient;
let endpointId: number;
const DELIVERY_COUNT = 60;
const NOT_FOUND = { error: 'not_found', message: 'No such webhook endpoint.' };

beforeAll(async () => {
  mail = await startTestMailSandbox();
  stack = await startTestStack({ withWorker: false, apiEnv: { ...mail.env, ...WEBHOOK_TEST_ENV, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
  alice = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, `alice-${Date.now()}@example.com`);
  bob = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, `bob-${Date.now()}@example.com`);
  const created = await alice.post('/app/api/webhooks', { url: 'http://127.0.0.1:9/hooks/paged', events: ['research.completed'] });
  expect(created.status).toBe(201);
  endpointId = created.body.endpoint.id;
  // Deliveries a minute apart, newest msg_paged_00; every third failed. Marked started, so no dispatcher would take them.
  await stack.orm.em.fork().execute(
    `insert into webhook_delivery (id, endpoint_id, account_id, event_type, payload, status, attempts, created_at, workflow_started_at)
     select 'msg_paged_' || lpad(i::text, 2, '0'), e.id, e.account_id, 'webhook.test', '{}',
            case when i % 3 = 0 then 'failed' else 'delivered' end, 1, now() - i * interval '1 minute', now()
       from webhook_endpoint e, generate_series(0, ?) as i where e.id = ?`,
    [DELIVERY_COUNT - 1, endpointId],
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await mail?.close();
});

const deliveries = (client: DashboardClient, query = '', id: number | string = endpointId) => client.get(`/app/api/webhooks/${id}/deliveries${query}`);
const ids = (reply: { body: { deliveries: { id: string }[] } }) => reply.body.deliveries.map((delivery) => delivery.id);
const expected = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `msg_paged_${String(from + i).padStart(2, '0')}`);

describe('an endpoint\'s deliveries on the Webhooks page', () => {
  it('come 25 a page, newest first, with the total, every delivery on exactly one page', async () => {
    const first = await deliveries(alice);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ page: 1, pageSize: 25, pageCount: 3, total: DELIVERY_COUNT });
    expect(ids(first)).toEqual(expected(0, 25));
    expect(ids(await deliveries(alice, '?page=2'))).toEqual(expected(25, 50));
    const last = await deliveries(alice, '?page=3');
    expect(last.body).toMatchObject({ page: 3, total: DELIVERY_COUNT });
    expect(ids(last)).toEqual(expected(50, 60));
    // Past the last page: nothing, but still the total, so the page can offer the way back.
    expect((await deliveries(alice, '?page=4')).body).toMatchObject({ deliveries: [], page: 4, pageCount: 3, total: DELIVERY_COUNT });
  });

  it('come 50 or 100 a page when asked, and refuse another size or page', async () => {
    const fifty = await deliveries(alice, '?pageSize=50&page=2');
    expect(fifty.body).toMatchObject({ page: 2, pageSize: 50, pageCount: 2 });
    expect(ids(fifty)).toEqual(expected(50, 60));
    expect(ids(await deliveries(alice, '?pageSize=100'))).toEqual(expected(0, 60));
    for (const query of ['?pageSize=7', '?page=0', '?page=two']) {
      const refused = await deliveries(alice, query);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error, query).toBe('invalid_request');
    }
  });

  it('are filtered by status, the total and pages counting only those', async () => {
    const failed = await deliveries(alice, '?status=failed');
    expect(failed.body).toMatchObject({ page: 1, pageCount: 1, total: 20 });
    expect(ids(failed)).toEqual(expected(0, 60).filter((_, i) => i % 3 === 0));
    const delivered = await deliveries(alice, '?status=delivered&page=2');
    expect(delivered.body).toMatchObject({ page: 2, pageCount: 2, total: 40 });
    expect(delivered.body.deliveries.every((delivery: { status: string }) => delivery.status === 'delivered')).toBe(true);
    expect((await deliveries(alice, '?status=skipped')).body).toMatchObject({ deliveries: [], total: 0, pageCount: 1 });
    const unknown = await deliveries(alice, '?status=lost');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid_request', fields: { status: expect.stringContaining('pending, delivered, failed, skipped') } });
  });

  it('can be resent from any page', async () => {
    const [onPageThree] = ids(await deliveries(alice, '?page=3'));
    expect((await alice.post(`/app/api/webhook-deliveries/${onPageThree}/resend`)).status).toBe(202);
    const [row]: { status: string; run: number; workflow_started_at: Date | null }[] = await stack.orm.em.fork().execute('select status, run, workflow_started_at from webhook_delivery where id = ?', [onPageThree]);
    expect(row).toMatchObject({ status: 'pending', run: 1, workflow_started_at: null });
    expect((await bob.post(`/app/api/webhook-deliveries/${expected(0, 1)[0]}/resend`)).status).toBe(404);
  });

  it('are 404 for another account\'s endpoint or one that does not exist, with the body of every endpoint route', async () => {
    // What the other endpoint routes answer Bob for Alice's endpoint.
    const patched = await bob.call('PATCH', `/app/api/webhooks/${endpointId}`, { isPaused: true });
    const revealed = await bob.post(`/app/api/webhooks/${endpointId}/secret`);
    expect([patched.status, revealed.status]).toEqual([404, 404]);
    expect(patched.body).toEqual(NOT_FOUND);
    expect(revealed.body).toEqual(NOT_FOUND);
    for (const id of [endpointId, 2_000_000_000, 'abc', '0']) {
      const reply = await deliveries(bob, '', id);
      expect(reply.status, String(id)).toBe(404);
      expect(reply.body, String(id)).toEqual(NOT_FOUND);
      const unknownForAlice = id === endpointId ? null : await deliveries(alice, '?status=failed', id);
      if (unknownForAlice) expect(unknownForAlice.body, String(id)).toEqual(NOT_FOUND);
    }
    expect((await alice.get(`/app/api/webhooks/${endpointId}/deliveries`)).status).toBe(200);
  });
});
