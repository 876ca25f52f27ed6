import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';

const HSTS_MAX_AGE_SECONDS = 365 * 24 * 3600;

/**
 * For replies that are not dashboard pages (JSON, redirects, assets): they run
 * no script and load nothing, and no page may frame them.
 */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * The headers every reply of the API carries, JSON and pages alike
 * (docs/security.md#headers). `Referrer-Policy: strict-origin`:
 * password-reset and verification links carry their token in the URL, and
 * strict-origin never sends a path or query onwards, to other sites or to our
 * own logs. Not `no-referrer`: under it a browser sends `Origin: null` on a
 * form's POST navigation, which the same-origin checks must refuse. HSTS only
 * where the public address is https: over plain http (development) a browser
 * ignores it, and on a host name shared with other http services it would
 * break them.
 */
export function securityHeaders(publicUrl: string): Middleware {
  const isHttps = new URL(publicUrl).protocol === 'https:';
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'strict-origin');
    ctx.set('Content-Security-Policy', API_CSP);
    // No includeSubDomains: the API's host name does not speak for its parent domain's other hosts.
    if (isHttps) ctx.set('Strict-Transport-Security', `max-age=${HSTS_MAX_AGE_SECONDS}`);
    await next();
  };
}

/** A fresh value for each page reply: the `nonce-…` of its style-src. */
export const newCspNonce = () => randomBytes(16).toString('base64');

/**
 * The built dashboard's policy. Scripts only from our own files (the build
 * inlines none). Styles from our files and, by nonce, the `<style>` elements
 * Mantine writes at run time (its CSS variables and responsive props): no
 * 'unsafe-inline'. Style properties that React sets through the DOM are not
 * inline styles in CSP's sense and need nothing. Images also from https:
 * (the prospects' photos are the providers' links), and from http: where the
 * app itself runs over http (development, the stand-ins' pictures).
 */
export function dashboardCsp(nonce: string, publicUrl: string): string {
  const isHttps = new URL(publicUrl).protocol === 'https:';
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    `img-src 'self' data: https:${isHttps ? '' : ' http:'}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Under Vite's dev server (`npm run dev`): its hot reload injects inline
 * scripts and styles, so only what does not touch them is kept.
 */
export const DEV_DASHBOARD_CSP = "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
