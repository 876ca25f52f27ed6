import { isAllowListed as isAllowListedHost } from './outbound-guard.ts';
import { createPageFetcher } from './page-fetcher.ts';

/** A client ID metadata document is a few hundred bytes; 16 KiB leaves room and no more. */
const MAX_DOCUMENT_BYTES = 16 * 1024;
const FETCH_TIMEOUT_MS = 5_000;

export class ClientMetadataDocumentRefused extends Error {}

/**
 * Fetches an agent's client ID metadata document (its `client_id` is the
 * document's https URL) through the outbound guard every caller-supplied URL
 * goes through: the address checked after DNS resolution inside the
 * connection, no redirect followed, a byte cap and one deadline. Only a host
 * on the development allow-list (ALLOW_PRIVATE_HOSTS) may resolve to a private
 * address or use plain http. This is the one place the document is fetched.
 */
export async function fetchClientMetadataDocument(clientId: string, allowedPrivateHosts: ReadonlySet<string>): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new ClientMetadataDocumentRefused('client_id is not a URL.');
  }
  const policy = { allowedPrivateHosts };
  const isAllowListed = isAllowListedHost(url, policy);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowListed)) throw new ClientMetadataDocumentRefused('client_id must be an https:// URL.');
  if (url.username || url.password || url.hash) throw new ClientMetadataDocumentRefused('client_id must not carry credentials or a fragment.');
  const fetchPage = createPageFetcher({ policy, maxRedirects: 0, maxBytes: MAX_DOCUMENT_BYTES, timeoutMs: FETCH_TIMEOUT_MS, requireHtml: false });
  let body: string;
  try {
    ({ body } = await fetchPage(url.href));
  } catch (error) {
    throw new ClientMetadataDocumentRefused(`The client metadata document could not be fetched: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new ClientMetadataDocumentRefused('The client metadata document is not JSON.');
  }
}
