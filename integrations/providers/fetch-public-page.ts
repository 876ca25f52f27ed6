import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isPublicAddress } from './public-address.ts';

export interface PageFetchOptions {
  timeoutMs: number;
  /** Bodies beyond this are cut off (not refused): the head of a page is what carries fingerprints. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Only for local sandboxes, which live on loopback. */
  allowPrivateNetworks?: boolean;
}

export interface FetchedPage {
  url: string;
  status: number;
  headers: Record<string, string>;
  setCookies: string[];
  html: string;
}

export type PageFetchFailure = 'invalid_url' | 'blocked_address' | 'too_many_redirects' | 'http_error' | 'network';

export class PageFetchError extends Error {
  readonly reason: PageFetchFailure;
  constructor(reason: PageFetchFailure, message: string) {
    super(message);
    this.name = 'PageFetchError';
    this.reason = reason;
  }
}

const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;

// The address check runs inside the connection's own DNS lookup, so a name
// that resolves to a public address for a pre-check and to 127.0.0.1 for the
// connection (DNS rebinding) is still refused.
function guardedLookup(hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) return callback(new PageFetchError('blocked_address', `${hostname} resolves to a non-public address`), []);
    const wantsAll = (options as { all?: boolean }).all;
    if (wantsAll) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new PageFetchError('invalid_url', 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new PageFetchError('invalid_url', `scheme ${url.protocol} refused`);
  if (url.username || url.password) throw new PageFetchError('invalid_url', 'credentials in URL refused');
  return url;
}

function requestOnce(url: URL, options: PageFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  // IP literals skip DNS, so they are checked here.
  if (!options.allowPrivateNetworks && /^[\d.]+$|:/.test(hostname) && !isPublicAddress(hostname)) {
    return Promise.reject(new PageFetchError('blocked_address', `${hostname} is not a public address`));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: 'GET',
      signal,
      lookup: options.allowPrivateNetworks ? undefined : guardedLookup,
      headers: { 'user-agent': 'Mozilla/5.0 (compatible; ProspectEnrichment/1.0)', accept: 'text/html,application/xhtml+xml' },
    }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function readCapped(response: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= maxBytes) {
      // Stop reading: an endless or huge body must not hold memory or time.
      response.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** GET a web page with SSRF guards, a size cap and manually followed, re-checked redirects. */
export async function fetchPublicPage(rawUrl: string, options: PageFetchOptions): Promise<FetchedPage> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = parseTarget(rawUrl);
  for (let hop = 0; ; hop++) {
    let response: IncomingMessage;
    try {
      response = await requestOnce(url, options, signal);
    } catch (error) {
      if (error instanceof PageFetchError) throw error;
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof PageFetchError) throw cause;
      throw new PageFetchError('network', (error as Error).message);
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      if (hop >= maxRedirects) throw new PageFetchError('too_many_redirects', `more than ${maxRedirects} redirects`);
      url = parseTarget(location, url);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw new PageFetchError('http_error', `status ${status}`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && name !== 'set-cookie') headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const html = await readCapped(response, options.maxBytes ?? DEFAULT_MAX_BYTES).catch((error: unknown) => {
      if (error instanceof PageFetchError) throw error;
      throw new PageFetchError('network', (error as Error).message);
    });
    return { url: url.href, status, headers, setCookies: response.headers['set-cookie'] ?? [], html };
  }
}
