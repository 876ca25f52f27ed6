import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/free-port.ts';
import { isRunning, waitFor } from '../../scripts/lib/child-process.ts';
import { CORE_PORTS } from '../../scripts/lib/dev-ports.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { isPortInUse } from '../../scripts/lib/port-owner.ts';
import { SANDBOXES } from '../../scripts/lib/sandboxes.ts';

// `npm run dev` itself, as a person runs it, on ports and a data directory of
// its own. Its environment is built from nothing: the test run's
// TEMPORAL_ADDRESS and friends must not leak into it.
const dataDirs: string[] = [];
const running: ChildProcess[] = [];
afterAll(async () => {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGINT');
      await once(child, 'exit');
    }
  }
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function devEnvironment(): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dev-command-'));
  chmodSync(dataDir, 0o755); // the postgres system user must reach its data directory inside
  dataDirs.push(dataDir);
  const env: Record<string, string> = { PATH: process.env.PATH!, DEV_DATA_DIR: dataDir, DASHBOARD_MODE: 'off', LOG_LEVEL: 'warn' };
  if (process.env.TEMPORAL_CLI) env.TEMPORAL_CLI = process.env.TEMPORAL_CLI;
  const variables = [...Object.values(CORE_PORTS).map(({ variable }) => variable), ...SANDBOXES.flatMap((sandbox) => sandbox.ports.map(({ variable }) => variable)), 'WORKER_METRICS_PORT'];
  for (const variable of variables) env[variable] = String(await freePort());
  return env;
}

/** Started in its own process group, so that a signal to the group is a terminal's Ctrl-C. */
function startDev(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'scripts/dev.ts')], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { child, output: () => text };
}

describe('npm run dev', () => {
  it('says Ready once the worker polls, refuses a second stack on its ports, and stops quietly on Ctrl-C', { timeout: 300_000 }, async () => {
    const env = await devEnvironment();
    const dev = startDev(env);
    await waitFor('Ready.', async () => dev.output().includes('[dev] Ready.') || dev.child.exitCode !== null, 240_000).catch(() => {});
    expect(dev.output(), dev.output()).toContain('[dev] Ready.');
    // Ready means usable: the API answers and a worker polls the research queue.
    const health = await (await fetch(`http://127.0.0.1:${env.PORT}/healthz`)).json();
    expect(health).toEqual({ status: 'ok', postgres: 'ok', temporal: 'ok', worker: 'polling' });
    expect((await fetch(`http://127.0.0.1:${env.WORKER_METRICS_PORT}/healthz`)).status).toBe(200);

    // A process per role, each listed; one that dies is started again with one line, the rest untouched.
    const roles = ['research', 'crm', 'webhooks', 'housekeeping'];
    for (const [index, role] of roles.entries()) {
      expect(dev.output()).toContain(`${role}-worker`.padEnd(21) + `http://127.0.0.1:${Number(env.WORKER_METRICS_PORT) + index}`);
    }
    // The API has its one line at the top; Temporal UI and the database come before the worker processes.
    expect(dev.output()).not.toMatch(/^\s+api\s+http/m);
    expect(dev.output().indexOf('  Temporal UI  ')).toBeLessThan(dev.output().indexOf('  research-worker  '));
    expect(dev.output().indexOf('  Database     ')).toBeLessThan(dev.output().indexOf('  research-worker  '));
    const webhooksProbe = `http://127.0.0.1:${Number(env.WORKER_METRICS_PORT) + 2}/readyz`;
    const before = await (await fetch(webhooksProbe)).json();
    expect(before).toMatchObject({ status: 'ok', roles: ['webhooks'] });
    const webhooksPid = Number(readFileSync(join(env.DEV_DATA_DIR, 'run', 'webhooks-worker.json'), 'utf8').match(/"pid":(\d+)/)![1]);
    process.kill(webhooksPid, 'SIGKILL');
    await waitFor('the restart line', async () => dev.output().includes('[dev] webhooks-worker exited (SIGKILL); starting it again'), 10_000);
    await waitFor('the webhooks worker to be back', async () => (await fetch(webhooksProbe)).ok, 120_000);
    expect((await fetch(`http://127.0.0.1:${env.PORT}/readyz`)).status).toBe(200);
    expect(dev.output()).not.toContain('stopping the rest');

    // A second checkout (another data directory) on the same ports joins nothing.
    const otherDataDir = mkdtempSync(join(tmpdir(), 'dev-command-other-'));
    dataDirs.push(otherDataDir);
    const second = startDev({ ...env, DEV_DATA_DIR: otherDataDir, PORT: String(await freePort()), WORKER_METRICS_PORT: String(await freePort()) });
    const [secondCode] = await once(second.child, 'exit');
    expect(secondCode).toBe(1);
    expect(second.output()).toMatch(new RegExp(`Port ${env.DEV_POSTGRES_PORT} is in use by something other than this checkout's PostgreSQL .*DEV_POSTGRES_PORT=<free port>`));
    expect(second.output()).not.toContain('Ready.');

    const exited = once(dev.child, 'exit');
    process.kill(-dev.child.pid!, 'SIGINT');
    const [code] = await exited;
    expect(code).toBe(0);
    const lines = dev.output().trimEnd().split('\n');
    expect(lines.at(-1)).toBe('[dev] Everything stopped.');
    expect(dev.output()).not.toMatch(/IllegalStateError|Not running/);
    for (const variable of Object.keys(env).filter((name) => name.endsWith('PORT'))) {
      expect(await isPortInUse(Number(env[variable])), `${variable} still taken`).toBe(false);
    }
  });

  it('takes every process it started with it when SIGKILLed; the next start finds nothing left and stops promptly', { timeout: 400_000 }, async () => {
    const env = await devEnvironment();
    const first = startDev(env);
    await waitFor('Ready.', async () => first.output().includes('[dev] Ready.') || first.child.exitCode !== null, 240_000).catch(() => {});
    expect(first.output(), first.output()).toContain('[dev] Ready.');
    const started = readdirSync(join(env.DEV_DATA_DIR, 'run')).map((file) => ({ file, pid: Number(readFileSync(join(env.DEV_DATA_DIR, 'run', file), 'utf8').match(/"pid":(\d+)/)![1]) }));
    expect(started.map(({ file }) => file)).toEqual(expect.arrayContaining(['api.json', 'temporal.json', 'research-worker.json', 'provider-world.json']));
    const postgresPid = Number(readFileSync(join(env.DEV_DATA_DIR, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

    const exited = once(first.child, 'exit');
    process.kill(first.child.pid!, 'SIGKILL'); // the parent alone: its children are in process groups of their own
    await exited;
    for (const { file, pid } of [...started, { file: 'postgres', pid: postgresPid }]) {
      await waitFor(`${file} (pid ${pid}) to end with npm run dev`, async () => !isRunning(pid), 60_000);
    }
    for (const variable of Object.keys(env).filter((name) => name.endsWith('PORT'))) {
      expect(await isPortInUse(Number(env[variable])), `${variable} still taken`).toBe(false);
    }

    const second = startDev(env);
    await waitFor('Ready.', async () => second.output().includes('[dev] Ready.') || second.child.exitCode !== null, 240_000).catch(() => {});
    expect(second.output(), second.output()).toContain('[dev] Ready.');
    expect(second.output()).not.toMatch(/left behind|Reusing/);
    const stopped = once(second.child, 'exit');
    const stopStarted = Date.now();
    process.kill(-second.child.pid!, 'SIGINT');
    const [code] = await stopped;
    expect(code).toBe(0);
    expect(Date.now() - stopStarted, 'Ctrl-C took too long').toBeLessThan(15_000);
  });
});
