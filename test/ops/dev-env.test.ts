import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDotEnv, type Env } from '../../lib/env.ts';
import { DEV_DEFAULTS, devEnvironment } from '../../scripts/lib/dev-env.ts';
import { SANDBOXES, type SandboxContext } from '../../scripts/lib/sandboxes.ts';

// What `npm run dev` hands its API and workers (scripts/dev.ts builds it with devEnvironment): the environment wins,
// then .env, then dev's own values.
const dir = mkdtempSync(join(tmpdir(), 'dev-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Everything the stand-ins tell the API and the worker, as local-services.ts collects it, plus the services' addresses. */
function providedByDev(): Record<string, string> {
  const context: SandboxContext = { env: {}, apiUrl: 'http://127.0.0.1:3000', dataDir: dir };
  const provided: Record<string, string> = { DATABASE_URL: 'postgres://dev@127.0.0.1:54329/prospect', TEMPORAL_ADDRESS: '127.0.0.1:7233', PORT: '3000' };
  for (const [index, sandbox] of SANDBOXES.entries()) {
    const ports = Object.fromEntries(sandbox.ports.map(({ key }, n) => [key, 4000 + index * 10 + n]));
    Object.assign(provided, sandbox.appEnv(`http://127.0.0.1:${ports[sandbox.ports[0].key]}`, ports, context));
  }
  return provided;
}

describe('the environment of npm run dev', () => {
  it('keeps an exported ALLOW_PRIVATE_HOSTS instead of the receiver stand-in\'s 127.0.0.1', () => {
    const provided = providedByDev();
    expect(provided.ALLOW_PRIVATE_HOSTS).toBe('127.0.0.1');
    expect(devEnvironment({ ALLOW_PRIVATE_HOSTS: '127.0.0.1,hooks.internal' }, provided).ALLOW_PRIVATE_HOSTS).toBe('127.0.0.1,hooks.internal');
    expect(devEnvironment({}, provided).ALLOW_PRIVATE_HOSTS).toBe('127.0.0.1');
  });

  it('lets every variable it sets yield to one in the environment', () => {
    const provided = providedByDev();
    const names = [...Object.keys(provided), ...Object.keys(DEV_DEFAULTS)];
    expect(names).toEqual(expect.arrayContaining(['DASHBOARD_MODE', 'WORKER_METRICS_PORT', 'SMTP_HOST', 'STRIPE_API_BASE', 'HUBSPOT_API_BASE', 'AI_SANDBOX_URL', 'WEBHOOK_RECEIVER_URL']));
    const exported = Object.fromEntries(names.map((name) => [name, `exported ${name}`]));
    const built = devEnvironment(exported, provided);
    for (const name of names) expect(built[name], name).toBe(`exported ${name}`);
    // Unset or blank: dev's value.
    const unset = devEnvironment({ DASHBOARD_MODE: ' ', SMTP_HOST: '' }, provided);
    expect(unset).toMatchObject({ DASHBOARD_MODE: 'dev', WORKER_METRICS_PORT: '9464', SMTP_HOST: '127.0.0.1', PORT: '3000' });
  });

  it('ranks the environment over .env over its own values', () => {
    const dotEnv = join(dir, '.env');
    writeFileSync(dotEnv, 'ALLOW_PRIVATE_HOSTS=from-dotenv\nDASHBOARD_MODE=dist\nSMTP_HOST=\n');
    const env: Env = { ALLOW_PRIVATE_HOSTS: 'exported', PATH: '/usr/bin' };
    expect(loadDotEnv(dotEnv, env)).toEqual(['DASHBOARD_MODE', 'SMTP_HOST']);
    const built = devEnvironment(env, providedByDev());
    expect(built).toMatchObject({ ALLOW_PRIVATE_HOSTS: 'exported', DASHBOARD_MODE: 'dist', SMTP_HOST: '127.0.0.1', PATH: '/usr/bin' });
  });
});
