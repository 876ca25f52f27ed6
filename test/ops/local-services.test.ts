import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/env.ts';
import { freePort } from '../../lib/free-port.ts';
import { readDevPorts } from '../../scripts/lib/dev-ports.ts';
import { startLocalServices } from '../../scripts/lib/local-services.ts';
import { PortInUseError } from '../../scripts/lib/port-owner.ts';
import { SANDBOXES } from '../../scripts/lib/sandboxes.ts';

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout's data directory, not the one whose services hold the port. */
function otherDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'other-checkout-'));
  dirs.push(dir);
  return dir;
}

/** Something that is not ours, listening on a port (another checkout, another program). */
async function occupy(port: number): Promise<void> {
  const server = createServer((socket) => socket.end());
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
}

const portOfUrl = (url: string) => Number(new URL(url).port);

async function startFailure(options: Parameters<typeof startLocalServices>[0]): Promise<PortInUseError> {
  try {
    const services = await startLocalServices(options);
    await services.stop();
  } catch (error) {
    if (error instanceof PortInUseError) return error;
    throw error;
  }
  throw new Error('started although the port was taken');
}

describe('ports of npm run dev', () => {
  it('every one has its variable and default, sandboxes included', () => {
    const ports = readDevPorts({});
    expect(ports).toMatchObject({ api: 3000, postgres: 54329, temporal: 7233, temporalUi: 8233 });
    expect(ports.sandboxes).toMatchObject({ providerWorld: 4010, modelSandbox: 4110 });
    const moved = readDevPorts({ PORT: '3100', DEV_POSTGRES_PORT: '55432', DEV_TEMPORAL_PORT: '7300', DEV_TEMPORAL_UI_PORT: '', SANDBOX_PROVIDER_PORT: '4011' });
    expect(moved).toMatchObject({ api: 3100, postgres: 55432, temporal: 7300, temporalUi: 8233 });
    expect(moved.sandboxes.providerWorld).toBe(4011);
    expect(moved.variableOf(55432)).toBe('DEV_POSTGRES_PORT');
    for (const sandbox of SANDBOXES) for (const { key, variable } of sandbox.ports) expect(readDevPorts({ [variable]: '1234' }).sandboxes[key]).toBe(1234);
  });

  it('a bad port is named', () => {
    expect(() => readDevPorts({ DEV_TEMPORAL_PORT: '70000' })).toThrow(ConfigError);
    expect(() => readDevPorts({ DEV_TEMPORAL_PORT: '70000' })).toThrow('DEV_TEMPORAL_PORT="70000" is not accepted: expected a whole number from 1 to 65535');
  });
});

describe('a service already on a port', () => {
  const quiet = () => {};

  it("is reused when it is this checkout's PostgreSQL (its data directory)", async () => {
    // The test run's own cluster lives in TEST_WORK_DIR/postgres: for this call, that is "this checkout".
    const port = portOfUrl(process.env.TEST_POSTGRES_ADMIN_URL!);
    const services = await startLocalServices({
      dataDir: process.env.TEST_WORK_DIR!,
      ports: { postgres: port, temporal: 0, temporalUi: null },
      // Every outside system configured, so that no sandbox is started: this call is never stopped (below).
      env: {
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
        PROVIDER_SANDBOX_URL: 'http://x.invalid',
        AI_SANDBOX_URL: 'http://x.invalid/v1',
        SMTP_HOST: 'x.invalid',
        HUBSPOT_API_BASE: 'http://x.invalid',
        PIPEDRIVE_OAUTH_BASE: 'http://x.invalid',
        SALESFORCE_LOGIN_BASE: 'http://x.invalid',
        CRM_CHAT_SANDBOX_URL: 'http://x.invalid',
        NODE_ENV: 'production',
      },
      log: quiet,
    });
    expect(services.sandboxUrls).toEqual({});
    expect(services.env.DATABASE_URL).toContain(`:${port}/prospect`);
    // Not services.stop(): a reused server is stopped with the rest (a Ctrl-C of
    // `npm run dev` ends what a killed run left), and this one is the test run's.
  });

  it("stops the start when it is another checkout's PostgreSQL, naming the port and its variable", async () => {
    const port = portOfUrl(process.env.TEST_POSTGRES_ADMIN_URL!);
    const failure = await startFailure({
      dataDir: otherDataDir(),
      ports: { postgres: port, temporal: 0, temporalUi: null },
      env: {},
      variableOf: () => 'DEV_POSTGRES_PORT',
      log: quiet,
    });
    expect(failure).toMatchObject({ port, variable: 'DEV_POSTGRES_PORT' });
    expect(failure.message).toMatch(new RegExp(`^Port ${port} is in use by something other than this checkout's PostgreSQL .*DEV_POSTGRES_PORT=<free port> npm run dev`));
  });

  it('stops the start when something else holds the Temporal port', async () => {
    const port = await freePort();
    await occupy(port);
    const failure = await startFailure({
      dataDir: otherDataDir(),
      ports: { postgres: 0, temporal: port, temporalUi: null },
      env: { DATABASE_URL: process.env.TEST_POSTGRES_ADMIN_URL },
      variableOf: (taken) => (taken === port ? 'DEV_TEMPORAL_PORT' : '?'),
      log: quiet,
    });
    expect(failure).toMatchObject({ port, variable: 'DEV_TEMPORAL_PORT' });
  });

  it('stops the start when something else holds a sandbox port', async () => {
    const port = await freePort();
    await occupy(port);
    const failure = await startFailure({
      dataDir: otherDataDir(),
      ports: { postgres: 0, temporal: 0, temporalUi: null, providerWorld: port },
      env: { DATABASE_URL: process.env.TEST_POSTGRES_ADMIN_URL, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, AI_SANDBOX_URL: 'http://x.invalid/v1' },
      variableOf: (taken) => (taken === port ? 'SANDBOX_PROVIDER_PORT' : '?'),
      log: quiet,
    });
    expect(failure).toMatchObject({ port, variable: 'SANDBOX_PROVIDER_PORT' });
    expect(failure.message).toContain('provider-world');
  });
});
