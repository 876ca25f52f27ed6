import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { startStripeSandbox, type StripeSandbox } from '../../sandbox/stripe/server.ts';

// The stand-in speaks Stripe's protocol (docs.stripe.com/api): Bearer keys,
// form-encoded bodies, Stripe's error object, idempotent replays, and webhooks
// that Stripe's own SDK verifies.

let sandbox: StripeSandbox;
let receiver: Server;
const received: Array<{ body: string; signature: string }> = [];
const SECRET = 'whsec_sandbox_protocol_test';

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ body, signature: String(req.headers['stripe-signature']) });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  sandbox = await startStripeSandbox({ port: 0, webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, webhookSecret: SECRET });
});
afterAll(async () => {
  await sandbox?.close();
  receiver?.close();
});

const form = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer sk_test_protocol', 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

describe('the Stripe stand-in', () => {
  it('answers Stripe error objects: no key 401, unknown object 404, unknown or missing parameter 400', async () => {
    const noKey = await fetch(`${sandbox.url}/v1/customers`, { method: 'POST', body: 'email=a@example.com' });
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).error).toMatchObject({ type: 'invalid_request_error' });

    const missing = await fetch(`${sandbox.url}/v1/subscriptions/sub_missing`, { headers: { authorization: 'Bearer sk_test_protocol' } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: "No such subscription: 'sub_missing'" });

    const unknown = await form('/v1/customers', 'email=a@example.com&favourite_colour=blue');
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatchObject({ code: 'parameter_unknown', param: 'favourite_colour' });

    const noMode = await form('/v1/checkout/sessions', 'success_url=https://example.com/');
    expect((await noMode.json()).error).toMatchObject({ code: 'parameter_missing', param: 'mode' });

    const badEnum = await form('/v1/checkout/sessions', 'mode=sometimes&success_url=https://example.com/');
    expect(badEnum.status).toBe(400);
  });

  it('replays the first reply for a repeated Idempotency-Key, and refuses the key with other parameters', async () => {
    const first = await form('/v1/customers', 'email=same@example.com', { 'idempotency-key': 'key-1' });
    const again = await form('/v1/customers', 'email=same@example.com', { 'idempotency-key': 'key-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await again.json()).id).toBe((await first.json()).id);
    const other = await form('/v1/customers', 'email=other@example.com', { 'idempotency-key': 'key-1' });
    expect(other.status).toBe(400);
    expect((await other.json()).error.type).toBe('idempotency_error');
  });

  it('signs webhooks so that Stripe\'s SDK verifies them', async () => {
    const before = received.length;
    await form('/v1/customers', 'email=signed@example.com');
    await sandbox.webhooks.idle();
    const delivery = received.slice(before).at(-1)!;
    expect(delivery.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const event = Stripe.webhooks.constructEvent(delivery.body, delivery.signature, SECRET);
    expect(event).toMatchObject({ type: 'customer.created', object: 'event', livemode: false });
    expect(() => Stripe.webhooks.constructEvent(delivery.body, delivery.signature, 'whsec_wrong')).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('the test controls: clock only forwards, events listed with their deliveries', async () => {
    const back = await fetch(`${sandbox.url}/__sandbox/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: '2001-01-01T00:00:00Z' }) });
    expect(back.status).toBe(400);
    const events = (await (await fetch(`${sandbox.url}/__sandbox/events?type=customer.created`)).json()) as { data: Array<{ type: string; delivery: { state: string } }> };
    expect(events.data.length).toBeGreaterThan(0);
    expect(events.data.every((event) => event.type === 'customer.created' && event.delivery.state === 'delivered')).toBe(true);
    expect((await fetch(`${sandbox.url}/__admin/calls`)).status).toBe(200);
  });
});
