import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_WORKER_METRICS_PORT } from '../../scripts/lib/dev-env.ts';
import { readDevPorts } from '../../scripts/lib/dev-ports.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { WORKER_ROLES } from '../../worker/role-names.ts';

// docs/configuration.md's second checkout, beside a first one on the defaults:
// every port `npm run dev` opens, the workers' one per role counting up from
// WORKER_METRICS_PORT (scripts/dev.ts), must differ between the two.
const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
const section = doc.slice(doc.indexOf('### Ports already taken, and two checkouts side by side'));
const example = /```ini\n([\s\S]*?)```/.exec(section)![1]!;
const secondEnv = Object.fromEntries(example.trim().split('\n').map((line) => line.split('=') as [string, string]));

/** The ports one `npm run dev` opens with this environment, by what opens them. */
function portsOf(env: Record<string, string>): Map<number, string> {
  const ports = readDevPorts(env);
  const byName = new Map<number, string>([
    [ports.api, 'api'], [ports.postgres, 'postgres'], [ports.temporal, 'temporal'], [ports.temporalUi, 'temporal ui'],
    ...Object.entries(ports.sandboxes).map(([key, port]) => [port, `sandbox ${key}`] as [number, string]),
  ]);
  const workerBase = Number(env.WORKER_METRICS_PORT ?? DEV_WORKER_METRICS_PORT);
  for (const [index, role] of WORKER_ROLES.entries()) byName.set(workerBase + index, `${role} worker`);
  return byName;
}

describe("docs/configuration.md's two checkouts side by side", () => {
  it('gives the second checkout ports that none of the first one\'s takes, the workers\' four included', () => {
    const first = portsOf({});
    const second = portsOf(secondEnv);
    expect(second.size).toBe(first.size);
    const clashes = [...second].filter(([port]) => first.has(port)).map(([port, what]) => `${port}: the second's ${what}, the first's ${first.get(port)}`);
    expect(clashes).toEqual([]);
  });
});
