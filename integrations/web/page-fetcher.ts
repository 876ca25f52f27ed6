import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { PageFetchFailed, PageFetchRefused } from './page-fetch-errors.ts';
import { guardedRequest, OutboundRefused, OutboundUnreachable, type OutboundPolicy } from './outbound-guard.ts';

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType: string;
  /** Response headers, lower-case names; `set-cookie` is in `setCookies`. */
  headers: Record<string, string>;
  setCookies: string[];
  body: string;
}

export type FetchPage = (url: string) => Promise<FetchedPage>;

export interface PageFetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Which private hosts may be reached (development and tests only); by default none. */
  policy?: OutboundPolicy;
  /**
   * A body over `maxBytes`: `refuse` it (a product page that big is not one), or
   * `truncate` it (technology fingerprints sit in a page's head).
   */
  oversize?: 'refuse' | 'truncate';
  /** Refuse responses that are not HTML (default true). */
  requireHtml?: boolean;
}

export const PAGE_FETCH_DEFAULTS = { timeoutMs: 10_000, maxBytes: 1024 * 1024, maxRedirects: 3, oversize: 'refuse', requireHtml: true } as const;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a caller-supplied web page without letting the caller aim the server
 * at its own network: http(s) only, every connection through the outbound
 * guard (integrations/web/outbound-guard.ts), every redirect re-checked, a byte
 * cap on the decoded body and one deadline for the whole fetch.
 */
export function createPageFetcher(options: PageFetchOptions = {}): FetchPage {
  const settings = { ...PAGE_FETCH_DEFAULTS, ...options };
  const { timeoutMs, maxRedirects } = settings;
  const policy = options.policy ?? { allowedPrivateHosts: new Set<string>() };

  return async function fetchPage(url: string): Promise<FetchedPage> {
    const deadline = AbortSignal.timeout(timeoutMs);
    let entered = url;
    let current = parseUrl(url);
    for (let redirects = 0; ; redirects += 1) {
      const response = await get(current, entered, policy, deadline);
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
        response.resume();
        if (redirects >= maxRedirects) throw new PageFetchRefused('too_many_redirects', `More than ${maxRedirects} redirects from ${url}`);
        current = parseUrl(new URL(location, current).href);
        entered = /^[a-z][a-z\d+.-]*:/i.test(location) ? location : current.href;
        continue;
      }
      return readPage(current.href, entered, response, settings);
    }
  };
}

function parseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PageFetchRefused('invalid_url', `Not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PageFetchRefused('unsupported_scheme', `Only http and https pages can be read, not ${parsed.protocol}`);
  }
  return parsed;
}

async function get(url: URL, entered: string, policy: OutboundPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  try {
    return await guardedRequest(url, entered, {
      method: 'GET',
      signal,
      headers: { accept: 'text/html,application/xhtml+xml', 'accept-encoding': 'gzip, deflate, br', 'user-agent': 'Mozilla/5.0 (compatible; ProspectEnrichment/1.0)' },
    }, policy);
  } catch (error) {
    throw toFetchError(error, entered);
  }
}

async function readPage(
  url: string,
  entered: string,
  response: IncomingMessage,
  { maxBytes, oversize, requireHtml }: Pick<Required<PageFetchOptions>, 'maxBytes' | 'oversize' | 'requireHtml'>,
): Promise<FetchedPage> {
  const status = response.statusCode ?? 0;
  const contentType = String(response.headers['content-type'] ?? '');
  if (status >= 400) {
    response.resume();
    throw new PageFetchFailed('http_status', `${url} answered ${status}`);
  }
  if (requireHtml && !/^(text\/html|application\/xhtml\+xml)\b/i.test(contentType)) {
    response.resume();
    throw new PageFetchFailed('not_html', `${url} is not a web page (${contentType || 'no content type'})`);
  }
  if (oversize === 'refuse' && Number(response.headers['content-length'] ?? 0) > maxBytes) {
    response.destroy();
    throw new PageFetchRefused('too_large', `${url} is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // The cap applies to the decoded bytes: a small compressed body can expand enormously.
    for await (const chunk of decoded(response)) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.destroy();
        if (oversize === 'refuse') throw new PageFetchRefused('too_large', `${url} is larger than ${maxBytes} bytes`);
        chunks.push((chunk as Buffer).subarray(0, (chunk as Buffer).length - (size - maxBytes)));
        break;
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw error instanceof PageFetchRefused ? error : toFetchError(error, entered);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && name !== 'set-cookie') headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const setCookies = response.headers['set-cookie'] ?? [];
  return { url, status, contentType, headers, setCookies, body: decodeText(Buffer.concat(chunks), contentType) };
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(createGunzip());
  if (encoding === 'deflate') return response.pipe(createInflate());
  if (encoding === 'br') return response.pipe(createBrotliDecompress());
  return response;
}

function decodeText(bytes: Buffer, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Refused by the guard, or unreachable: one reason and one text whether the port was closed, silent or reset. */
function toFetchError(error: unknown, entered: string): Error {
  if (error instanceof PageFetchRefused || error instanceof PageFetchFailed) return error;
  if (error instanceof OutboundRefused) return new PageFetchRefused('private_address', error.message);
  const unreachable = error instanceof OutboundUnreachable ? error : new OutboundUnreachable(entered, { cause: error });
  return new PageFetchFailed('unreachable', unreachable.message, { cause: error });
}
