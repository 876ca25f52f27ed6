import type { components } from './generated/openapi.ts';

/** `research.completed`: `data` is the job's completed status reply (the `webhooks` of /openapi.json). */
export type ResearchCompletedEvent = components['schemas']['ResearchCompletedEvent'];
/** `research.failed`: `data` is the job's failed status reply. */
export type ResearchFailedEvent = components['schemas']['ResearchFailedEvent'];
/** `webhook.test`: sent by "Send test event" on the Webhooks page. */
export type WebhookTestEvent = components['schemas']['WebhookTestEvent'];
/** What a completion webhook carries; narrow on `type`. */
export type WebhookEvent = components['schemas']['WebhookEvent'];

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((each) => each.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

const TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies a delivery per Standard Webhooks: HMAC-SHA256 over
 * `webhook-id.webhook-timestamp.body` with the endpoint's `whsec_…` secret,
 * any of the space-separated `v1,…` signatures (two during a rotation),
 * timestamp within 5 minutes. Pass the raw body, exactly as received.
 * Returns the parsed event; throws WebhookVerificationError.
 */
export async function verifyWebhook(headers: HeaderSource, body: string | Uint8Array, secret: string, options: { now?: Date } = {}): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!Number.isInteger(seconds)) throw new WebhookVerificationError('invalid webhook-timestamp');
  if (Math.abs(now - seconds) > TOLERANCE_SECONDS) throw new WebhookVerificationError('webhook-timestamp too old or too new');

  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${text}`)));
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    return version === 'v1' && signature !== undefined && constantTimeEqual(base64ToBytes(signature), expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
  return JSON.parse(text) as WebhookEvent;
}

function base64ToBytes(value: string): Uint8Array<ArrayBuffer> {
  try {
    const binary = atob(value);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return new Uint8Array(0);
  }
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a[i] ^ b[i];
  return difference === 0;
}
