import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '../web/private-address.ts';

/** Standard Webhooks suggests a short timeout; ours is 15 s per attempt (docs/webhooks.md#delivery). */
export const ATTEMPT_TIMEOUT_MS = 15_000;

export type PostOutcome =
  /** `retryAfter`: the answer's `Retry-After` header as sent, if any (integrations/webhooks/retry-after.ts reads it). */
  | { kind: 'answered'; statusCode: number; retryAfter: string | null; durationMs: number }
  /** Not sent: the address is private (or the URL unusable). Never retried into. */
  | { kind: 'refused'; reason: string; durationMs: number }
  /** Connection refused or reset, DNS failure, timeout. */
  | { kind: 'network'; reason: string; durationMs: number };

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

/** Resolves the endpoint's host now and refuses a private answer (the dashboard's check when it is added). */
export async function assertResolvesPublicly(url: URL, allowedPrivateHosts: ReadonlySet<string>): Promise<void> {
  const host = bareHost(url);
  if (allowedPrivateHosts.has(host)) return;
  let addresses: LookupAddress[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await dnsLookupAll(host, { all: true });
  } catch {
    throw new WebhookUrlRefused(`${host} does not resolve.`);
  }
  if (addresses.length === 0 || addresses.some((entry) => isPrivateAddress(entry.address))) {
    throw new WebhookUrlRefused(`${host} resolves to a private, loopback or reserved address.`);
  }
}

/**
 * One delivery attempt: a POST that follows no redirect, with the address
 * checked inside the connection itself after DNS resolution (so a DNS answer
 * cannot change between the check and the connect), and one deadline for the
 * answer's status line. The answer's body is not read; of its headers, only `Retry-After`.
 */
export async function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: { allowedPrivateHosts: ReadonlySet<string>; timeoutMs?: number },
): Promise<PostOutcome> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  let url: URL;
  try {
    url = parseWebhookUrl(rawUrl, options.allowedPrivateHosts);
  } catch (error) {
    return { kind: 'refused', reason: (error as Error).message, durationMs: elapsed() };
  }
  const host = bareHost(url);
  const isAllowed = (address: string) => options.allowedPrivateHosts.has(host) || !isPrivateAddress(address);
  if (isIP(host) !== 0 && !isAllowed(host)) return { kind: 'refused', reason: `${host} is a private address`, durationMs: elapsed() };

  let refusal: string | null = null;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      if (addresses.length === 0 || addresses.some((entry) => !isAllowed(entry.address))) {
        refusal = `${hostname} resolves to a private, loopback or reserved address`;
        return callback(new Error(refusal), '', 4);
      }
      if (lookupOptions.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
  const signal = AbortSignal.timeout(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostOutcome>((resolve) => {
    const req = send(url, {
      method: 'POST',
      lookup,
      signal,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'ProspectEnrichment-Webhooks/1.0' },
    });
    req.on('response', (response) => {
      response.resume();
      const retryAfter = response.headers['retry-after'] ?? null;
      resolve({ kind: 'answered', statusCode: response.statusCode ?? 0, retryAfter, durationMs: elapsed() });
    });
    req.on('error', (error) => {
      if (refusal) return resolve({ kind: 'refused', reason: refusal, durationMs: elapsed() });
      const reason = signal.aborted ? `no answer within ${(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS) / 1000} s` : (error as NodeJS.ErrnoException).code ?? error.message;
      resolve({ kind: 'network', reason, durationMs: elapsed() });
    });
    req.end(body);
  });
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}
