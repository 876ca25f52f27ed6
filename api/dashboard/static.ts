import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import send from 'koa-send';
import { CSP_NONCE_PLACEHOLDER } from '../../domain/dashboard/csp-nonce.ts';
import { dashboardCsp, DEV_DASHBOARD_CSP, newCspNonce } from '../security-headers.ts';
import { DASHBOARD_DIST, DASHBOARD_ROOT, type DashboardConfig } from './config.ts';

const YEAR_MS = 365 * 24 * 3600 * 1000;

const isPagePath = (path: string) => (path === '/app' || path.startsWith('/app/')) && !path.startsWith('/app/api/');

/**
 * The dashboard's pages at /app, from the same origin as its JSON API: built
 * files from dashboard/dist (hashed assets cached for a year, every other path
 * answered with index.html for the client-side router), or Vite with hot
 * reload in development. Each page carries the dashboard's Content-Security-Policy
 * with a nonce of its own (api/security-headers.ts).
 */
export async function dashboardPages(config: DashboardConfig, server: Server): Promise<Middleware | null> {
  if (config.mode === 'off') return null;
  if (config.mode === 'dev') return viteMiddleware(server);
  const placeholder = new RegExp(CSP_NONCE_PLACEHOLDER, 'g');
  return async (ctx, next) => {
    if (!isPagePath(ctx.path) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (ctx.path === '/app') return ctx.redirect('/app/');
    const isAsset = ctx.path.startsWith('/app/assets/');
    const file = ctx.path.slice('/app'.length);
    if (isAsset) {
      // The build wrote .br and .gz copies beside each asset (dashboard/precompress.ts).
      ctx.vary('Accept-Encoding');
      await send(ctx, file, { root: DASHBOARD_DIST, immutable: true, maxage: YEAR_MS, brotli: true, gzip: true });
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    const isFile = file !== '/' && file !== '/index.html' && existsSync(join(DASHBOARD_DIST, file));
    if (isFile) return void (await send(ctx, file, { root: DASHBOARD_DIST }));
    const nonce = newCspNonce();
    ctx.set('Content-Security-Policy', dashboardCsp(nonce, config.publicUrl));
    ctx.type = 'html';
    ctx.body = (await readFile(join(DASHBOARD_DIST, 'index.html'), 'utf8')).replace(placeholder, nonce);
  };
}

async function viteMiddleware(server: Server): Promise<Middleware> {
  const [{ createServer }, { default: connect }] = await Promise.all([import('vite'), import('koa-connect')]);
  const vite = await createServer({
    configFile: join(DASHBOARD_ROOT, 'vite.config.ts'),
    server: { middlewareMode: true, ws: { server } },
    appType: 'spa',
  });
  server.once('close', () => void vite.close());
  const handle = connect(vite.middlewares);
  return async (ctx, next) => {
    if (!isPagePath(ctx.path)) return next();
    ctx.set('Content-Security-Policy', DEV_DASHBOARD_CSP);
    return handle(ctx, next);
  };
}
