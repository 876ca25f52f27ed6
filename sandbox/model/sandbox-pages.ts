import type { ServerResponse } from 'node:http';
import { productPageHtml } from './product-pages.ts';

const HUGE_PAGE_BYTES = 2 * 1024 * 1024;

/**
 * Static web pages for product-context extraction: product pages, redirect
 * chains (`/hops/<n>/<slug>` redirects n times before the page) and an
 * oversized page, so the fetch guards can be exercised offline.
 */
export function serveSandboxPage(path: string, res: ServerResponse): boolean {
  const product = /^\/products\/([a-z0-9-]+)\/?$/.exec(path);
  if (product?.[1] === 'huge') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Huge</title></head><body>${'<p>padding</p>'.repeat(HUGE_PAGE_BYTES / 14)}</body></html>`);
    return true;
  }
  if (product) {
    const html = productPageHtml(product[1]);
    if (html === null) return false;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
    res.end(html);
    return true;
  }
  const hops = /^\/hops\/(\d+)\/([a-z0-9-]+)$/.exec(path);
  if (hops) {
    const remaining = Number(hops[1]) - 1;
    const location = remaining <= 0 ? `/products/${hops[2]}/` : `/hops/${remaining}/${hops[2]}`;
    res.writeHead(302, { location });
    res.end();
    return true;
  }
  return false;
}
