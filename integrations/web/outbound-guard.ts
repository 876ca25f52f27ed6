import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ConfigError, type Env } from '../../lib/env.ts';
import { isPrivateAddress } from './private-address.ts';

// The one guard for every server-side request to an address a user gave us
// (product pages, company websites, webhook endpoints, chat webhooks): the
// address is checked inside the connection itself, after DNS resolution, so a
// DNS answer cannot change between the check and the connect (DNS rebinding).

/** Whom a guarded request may reach besides public addresses. */
export interface OutboundPolicy {
  /**
   * Hosts (as in a URL, lower-case) a request may reach although they are
   * private or loopback, over plain http too. DEVELOPMENT AND TESTS ONLY:
   * empty unless ALLOW_PRIVATE_HOSTS says otherwise, refused in production.
   */
  allowedPrivateHosts: ReadonlySet<string>;
  /** Every address of a host name (the system resolver by default; tests inject their own). */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

/** The policy from ALLOW_PRIVATE_HOSTS: nothing private unless it names the host, and never with NODE_ENV=production. */
export function loadOutboundPolicy(env: Env = process.env): OutboundPolicy {
  const hosts = (env.ALLOW_PRIVATE_HOSTS ?? '').split(',').map((host) => host.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter(Boolean);
  if (hosts.length > 0 && env.NODE_ENV === 'production') throw new ConfigError(['ALLOW_PRIVATE_HOSTS is for development and tests only']);
  return { allowedPrivateHosts: new Set(hosts) };
}

/** The request may not be sent: its address is private, loopback or reserved. Retrying cannot help. */
export class OutboundRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

/**
 * No answer: refused, reset, timed out, or a name that does not resolve. One
 * error and one text for all of them, so that no caller can tell an open port
 * from a closed one by the message.
 */
export class OutboundUnreachable extends Error {
  constructor(enteredUrl: string, options?: { cause?: unknown }) {
    super(`${enteredUrl} could not be reached (no answer, or the connection was refused or dropped).`, options);
    this.name = 'OutboundUnreachable';
  }
}

/**
 * The host exactly as the person typed it in `raw` (`[::ffff:127.0.0.1]`,
 * `0177.0.0.1`), not the URL parser's normal form (`[::ffff:7f00:1]`,
 * `127.0.0.1`): a refusal quotes what they entered.
 */
export function enteredHost(raw: string): string {
  const match = /^\s*[a-z][a-z\d+.-]*:[/\\]{2}(?:[^/\\?#]*@)?(\[[^\]]*\]|[^:/\\?#]*)/i.exec(raw);
  if (match?.[1]) return match[1];
  try {
    return new URL(raw).hostname;
  } catch {
    return raw;
  }
}

const refusal = (host: string, isLiteral: boolean) =>
  new OutboundRefused(`${host} ${isLiteral ? 'is' : 'resolves to'} a private, loopback or reserved address, which we never contact.`);

const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

/** True when the policy lets `url` reach private addresses (its host is on the development allow-list). */
export function isAllowListed(url: URL, policy: OutboundPolicy): boolean {
  return policy.allowedPrivateHosts.has(bareHost(url));
}

/**
 * Refuses a URL whose host is itself a private address literal (before any
 * connection: a literal is never looked up). `entered` is the URL as given,
 * for the message.
 */
export function assertPublicLiteral(url: URL, entered: string, policy: OutboundPolicy): void {
  const host = bareHost(url);
  if (isIP(host) !== 0 && !isAllowListed(url, policy) && isPrivateAddress(host)) throw refusal(enteredHost(entered), true);
}

/**
 * A `lookup` for node:http(s) and node:net that resolves the name and fails the
 * connection when any of its addresses is private (unless allow-listed).
 */
export function guardedLookup(url: URL, entered: string, policy: OutboundPolicy): LookupFunction {
  const isAllowed = (address: string) => isAllowListed(url, policy) || !isPrivateAddress(address);
  const resolve = policy.resolve ?? systemResolve;
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const addresses = found.filter((entry) => !options.family || entry.family === options.family);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (addresses.some((entry) => !isAllowed(entry.address))) return callback(refusal(enteredHost(entered), false), '', 4);
        if (options.all) return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}

/**
 * The check when an address is saved: refuses it now if its host is, or
 * resolves to, a private address, or cannot be found. Every later request is
 * checked again at connect time (a name may resolve elsewhere since).
 */
export async function assertResolvesPublicly(url: URL, entered: string, policy: OutboundPolicy): Promise<void> {
  if (isAllowListed(url, policy)) return;
  assertPublicLiteral(url, entered, policy);
  const host = bareHost(url);
  if (isIP(host) !== 0) return;
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw new OutboundRefused(`${enteredHost(entered)} cannot be found.`);
  if (addresses.some((entry) => isPrivateAddress(entry.address))) throw refusal(enteredHost(entered), false);
}

function systemResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
}

export interface GuardedRequest {
  method: 'GET' | 'POST';
  headers: OutgoingHttpHeaders;
  body?: string;
  signal: AbortSignal;
}

/**
 * One request through the guard: resolves with the answer's head (the caller
 * reads or drains the body), rejects with OutboundRefused or
 * OutboundUnreachable. `entered` is the URL as the person gave it.
 */
export function guardedRequest(url: URL, entered: string, init: GuardedRequest, policy: OutboundPolicy): Promise<IncomingMessage> {
  try {
    assertPublicLiteral(url, entered, policy);
  } catch (error) {
    return Promise.reject(error);
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, { method: init.method, headers: init.headers, signal: init.signal, lookup: guardedLookup(url, entered, policy) });
    request.on('response', resolve);
    request.on('error', (error) => reject(asOutboundError(error, entered)));
    request.end(init.body);
  });
}

/** Our refusal as it is, any other failure of the connection as OutboundUnreachable (quoting `entered`). */
export function asOutboundError(error: unknown, entered: string): Error {
  if (error instanceof OutboundRefused || error instanceof OutboundUnreachable) return error;
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof OutboundRefused) return cause;
  return new OutboundUnreachable(entered, { cause: error });
}
