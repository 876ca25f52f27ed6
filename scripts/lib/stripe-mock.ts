import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from './child-process.ts';

/**
 * Stripe's own API mock: it validates requests against Stripe's published
 * OpenAPI description and answers with fixtures (stateless). Pinned so every
 * machine checks against the same description.
 */
export const STRIPE_MOCK_MODULE = 'github.com/stripe/stripe-mock';
export const STRIPE_MOCK_VERSION = 'v0.203.0';

/**
 * The stripe-mock binary in `.tools/go-bin`, installed there with `go install`
 * through the Go module proxy when missing. No Go toolchain is an error that
 * says what to install, never a silent skip. CI can run it on its own:
 * `node scripts/lib/stripe-mock.ts`.
 */
export function ensureStripeMock(root: string): string {
  const binDir = join(root, '.tools', 'go-bin');
  const binary = join(binDir, 'stripe-mock');
  if (existsSync(binary)) return binary;
  const go = findGo();
  if (!go) {
    throw new Error(
      `stripe-mock ${STRIPE_MOCK_VERSION} is needed to check our Stripe requests, and installing it needs Go (1.22 or newer): ` +
        `install Go (https://go.dev/dl/ or your package manager) and run the tests again, or install it yourself with ` +
        `GOBIN=${binDir} go install ${STRIPE_MOCK_MODULE}@${STRIPE_MOCK_VERSION}`,
    );
  }
  mkdirSync(binDir, { recursive: true });
  process.stderr.write(`Installing stripe-mock ${STRIPE_MOCK_VERSION} into .tools/go-bin (go install)…\n`);
  execFileSync(go, ['install', `${STRIPE_MOCK_MODULE}@${STRIPE_MOCK_VERSION}`], {
    env: { ...process.env, GOBIN: binDir, GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 10 * 60_000,
  });
  if (!existsSync(binary)) throw new Error(`go install ${STRIPE_MOCK_MODULE}@${STRIPE_MOCK_VERSION} finished but ${binary} is missing`);
  return binary;
}

function findGo(): string | null {
  if (process.env.GO_BINARY) return process.env.GO_BINARY;
  for (const candidate of ['go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go']) {
    try {
      execFileSync(candidate, ['version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

export interface StripeMockServer {
  url: string;
  process: ManagedProcess;
}

/** Starts stripe-mock on `127.0.0.1:<port>` (HTTP only) and waits until it answers. */
export async function startStripeMock(binary: string, port: number, logFile?: string): Promise<StripeMockServer> {
  const child = startProcess('stripe-mock', binary, ['-http-addr', `127.0.0.1:${port}`], { logFile });
  const url = `http://127.0.0.1:${port}`;
  try {
    // Any authenticated GET proves it listens; a fixture reply is 200.
    await waitFor('stripe-mock', async () => (await fetch(`${url}/v1/customers/cus_probe`, { headers: { authorization: 'Bearer sk_test_123' } })).ok, 30_000);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { url, process: child };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${ensureStripeMock(join(import.meta.dirname, '..', '..'))}\n`);
}
