// Temporal over mutual TLS, for real: the dev server has no TLS, so a TLS
// terminator that checks client certificates stands in front of it (as a
// self-hosted cluster's frontend does). The API and a worker configured
// through TEMPORAL_TLS_* run a job; a certificate the CA did not sign, or
// none, stops the process at start with one line, never a hang.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_ERROR_EXIT_CODE } from '../../lib/env.ts';
import { waitFor } from '../../scripts/lib/child-process.ts';
import { makeCertificates, startTlsTerminator, type CertificateFiles, type TlsTerminator } from '../helpers/tls-terminator.ts';
import { startAppProcess, type AppProcess } from '../helpers/app-process.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let certificates: CertificateFiles;
let terminator: TlsTerminator;
const children: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  certificates = makeCertificates();
  terminator = await startTlsTerminator(certificates, stack.config.temporal.address);
}, 120_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await terminator?.close();
  await stack?.stop();
  if (certificates) rmSync(certificates.dir, { recursive: true, force: true });
});

/** Through the terminator, trusting its CA; `tls` adds (or leaves out) the client certificate. */
async function start(entry: 'api/main.ts' | 'worker/main.ts', args: string[], tls: Record<string, string>): Promise<AppProcess> {
  const started = await startAppProcess(stack, entry, args, {
    TEMPORAL_ADDRESS: terminator.address,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCert,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
    DASHBOARD_MODE: 'off',
    LOG_LEVEL: 'warn',
    ...tls,
  });
  children.push(started.child);
  return started;
}

const goodCertificate = () => ({ TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCert, TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKey });

describe('Temporal over mutual TLS', () => {
  it('runs a job through an API and a worker that present the client certificate', { timeout: 180_000 }, async () => {
    const worker = await start('worker/main.ts', ['research'], goodCertificate());
    const api = await start('api/main.ts', [], goodCertificate());
    for (const each of [worker, api]) {
      await waitFor('readiness', async () => (await fetch(`${each.url}/readyz`)).ok, 90_000).catch((error: Error) => {
        throw new Error(`${error.message}; stderr: ${each.stderr()}`);
      });
    }
    const { key } = await stack.createCustomer('growth');
    const email = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }).email;
    const accepted = await fetch(`${api.url}/research`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    expect(accepted.status).toBe(202);
    const { research_id: researchId } = (await accepted.json()) as { research_id: string };
    let status = '';
    for (let waited = 0; waited < 120 && !['completed', 'failed'].includes(status); waited += 1) {
      const reply = await fetch(`${api.url}/research-status/${researchId}?wait=5`, { headers: { authorization: `Bearer ${key}` } });
      status = ((await reply.json()) as { status: string }).status;
    }
    expect(status).toBe('completed');
    const refusedBefore = terminator.refused();
    expect(refusedBefore).toBe(0);
    for (const each of [worker, api]) {
      each.child.kill('SIGTERM');
      await once(each.child, 'exit');
    }
  });

  for (const [what, tls] of [
    ['a client certificate another CA signed', () => ({ TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.strangerCert, TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.strangerKey })],
    ['no client certificate', () => ({})],
  ] as const) {
    it(`stops a worker and an API with ${what} at start, with one line`, { timeout: 120_000 }, async () => {
      const refusedBefore = terminator.refused();
      for (const entry of ['worker/main.ts', 'api/main.ts'] as const) {
        const started = Date.now();
        const process_ = await start(entry, entry === 'worker/main.ts' ? ['research'] : [], tls());
        const [code] = await once(process_.child, 'exit');
        expect(code, process_.stderr()).toBe(CONFIG_ERROR_EXIT_CODE);
        const lines = process_.stderr().trimEnd().split('\n');
        expect(lines, process_.stderr()).toHaveLength(1);
        const program = entry === 'worker/main.ts' ? 'worker' : 'api';
        expect(lines[0]).toMatch(new RegExp(`^${program}: configuration: TEMPORAL_ADDRESS: cannot connect to Temporal at ${terminator.address.replaceAll('.', '\\.')}, namespace default, (mTLS|TLS): .+`));
        // Fails fast: within the connect timeout, not a hang.
        expect(Date.now() - started).toBeLessThan(30_000);
      }
      expect(terminator.refused()).toBeGreaterThan(refusedBefore);
    });
  }
});
