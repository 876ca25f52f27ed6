import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { createPageFetcher, type PageFetchOptions } from '../web/page-fetcher.ts';
import { siteAddress } from '../web/site-host-map.ts';
import type { FingerprintedPage } from './fingerprint-matcher.ts';

// Matching a page against Wappalyzer's ~7,000 fingerprints is tens of
// milliseconds of pure CPU; on the worker's event loop it would hold up every
// other activity and workflow task meanwhile. It runs on worker threads.
let matcherThreads: Piscina<FingerprintedPage, string[]> | null = null;

function matchOnThread(page: FingerprintedPage): Promise<string[]> {
  matcherThreads ??= new Piscina({
    filename: new URL('./fingerprint-matcher.ts', import.meta.url).href,
    // The other core(s) serve the event loop; an idle thread exits, with its ~50 MB of fingerprints.
    maxThreads: Math.max(1, availableParallelism() - 1),
    idleTimeout: 60_000,
  });
  return matcherThreads.run({ url: page.url, headers: page.headers, setCookies: page.setCookies, body: page.body });
}

/**
 * Fetch the company's home page (guarded; an oversized page is cut, not
 * refused, since fingerprints sit in its head) and fingerprint it.
 */
export async function detectTechnologies(
  website: string,
  options: Omit<PageFetchOptions, 'oversize' | 'requireHtml'> & { websiteStandInUrl?: string | null },
): Promise<string[]> {
  const { websiteStandInUrl = null, ...fetchOptions } = options;
  const page = await createPageFetcher({ ...fetchOptions, oversize: 'truncate', requireHtml: false })(siteAddress(website, websiteStandInUrl));
  return matchOnThread(page);
}
