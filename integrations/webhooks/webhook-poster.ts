import { guardedRequest, OutboundRefused, type OutboundPolicy } from '../web/outbound-guard.ts';

/** Standard Webhooks suggests a short timeout; ours is 15 s per attempt (docs/webhooks.md#delivery). */
export const ATTEMPT_TIMEOUT_MS = 15_000;

export type PostOutcome =
  /** `retryAfter`: the answer's `Retry-After` header as sent, if any (integrations/webhooks/retry-after.ts reads it). */
  | { kind: 'answered'; statusCode: number; retryAfter: string | null; durationMs: number }
  /** Not sent: the address is private (or the URL unusable). Never retried into. */
  | { kind: 'refused'; reason: string; durationMs: number }
  /** Connection refused or reset, DNS failure, timeout: one reason for all (no port scanning through us). */
  | { kind: 'network'; reason: string; durationMs: number };

/** The one text for every way an endpoint may not answer. */
export const NO_ANSWER_REASON = 'no answer (the connection was refused, dropped or timed out)';

export class WebhookUrlRefused extends Error {}

/**
 * An endpoint URL we will post to: https, or plain http only for a host on the
 * development allow-list. Throws WebhookUrlRefused with a reason a person can read.
 */
export function parseWebhookUrl(raw: string, allowedPrivateHosts: ReadonlySet<string>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('Not a URL.');
  }
  const isAllowListed = allowedPrivateHosts.has(bareHost(url));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowListed)) throw new WebhookUrlRefused('The endpoint must be an https:// URL.');
  if (url.username || url.password) throw new WebhookUrlRefused('The URL must not carry a user name or password.');
  return url;
}

/**
 * One delivery attempt: a POST through the outbound guard (the address checked
 * inside the connection, after DNS resolution), following no redirect, with one
 * deadline for the answer's status line. The answer's body is not read; of its
 * headers, only `Retry-After`.
 */
export async function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: OutboundPolicy & { timeoutMs?: number },
): Promise<PostOutcome> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  let url: URL;
  try {
    url = parseWebhookUrl(rawUrl, options.allowedPrivateHosts);
  } catch (error) {
    return { kind: 'refused', reason: (error as Error).message, durationMs: elapsed() };
  }
  const signal = AbortSignal.timeout(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  try {
    const response = await guardedRequest(url, rawUrl, {
      method: 'POST',
      signal,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'ProspectEnrichment-Webhooks/1.0' },
      body,
    }, options);
    response.resume();
    const retryAfter = response.headers['retry-after'] ?? null;
    return { kind: 'answered', statusCode: response.statusCode ?? 0, retryAfter, durationMs: elapsed() };
  } catch (error) {
    if (error instanceof OutboundRefused) return { kind: 'refused', reason: error.message, durationMs: elapsed() };
    return { kind: 'network', reason: NO_ANSWER_REASON, durationMs: elapsed() };
  }
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}
