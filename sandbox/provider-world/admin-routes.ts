import { z } from 'zod';
import { ENDPOINTS, type Chaos, type FaultsConfig, type LatencyMap } from './faults.ts';
import type { Reply } from './provider-api.ts';
import type { World } from './world.ts';
import type { Coverage } from './generate-world.ts';

interface AdminDeps {
  chaos: Chaos;
  world: World;
  initial: { faults: FaultsConfig; latency: LatencyMap };
}

const COVERAGES: readonly Coverage[] = ['pdl', 'apollo', 'both', 'none'];

const rate = z.number().min(0).max(1).optional();
const ZEndpointFaults = z.object({
  timeoutRate: rate, rateLimitRate: rate, serverErrorRate: rate, unavailableRate: rate,
  retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
  script: z.array(z.enum(['timeout', 'rate_limit', 'server_error', 'unavailable', 'ok'])).optional(),
});
const ZLatency = z.object({ meanMs: z.number().min(0).max(120_000), jitterMs: z.number().min(0).max(120_000).optional() });
const endpointKey = z.enum([...ENDPOINTS, '*']);
// Strict: a typo in a chaos script should fail loudly, not silently do nothing.
const ZAdminConfig = z.strictObject({
  faults: z.partialRecord(endpointKey, ZEndpointFaults).optional(),
  latency: z.partialRecord(endpointKey, ZLatency).optional(),
  timeoutHoldMs: z.number().int().min(0).max(600_000).optional(),
  replace: z.boolean().optional(),
});

// Lets other processes (tests, benchmarks, chaos scripts) drive the world:
//   GET  /__admin/calls                 counters per endpoint
//   GET  /__admin/config                current faults and latency
//   POST /__admin/config                {faults?, latency?, timeoutHoldMs?, replace?}
//   POST /__admin/reset                 counters, faults and latency back to start
//   GET  /__admin/sample-people?knownTo=pdl&nonEnglishTitle=true&withPosts=true&withPromptInjection=true&limit=5
export function handleAdmin(method: string, url: URL, body: Record<string, unknown> | null, deps: AdminDeps): Reply {
  const { chaos, world } = deps;
  const path = url.pathname;
  if (method === 'GET' && path === '/__admin/calls') {
    return { status: 200, body: { total: chaos.calls(), calls: chaos.snapshot() } };
  }
  if (method === 'GET' && path === '/__admin/config') return { status: 200, body: chaos.state };
  if (method === 'POST' && path === '/__admin/config') {
    const parsed = ZAdminConfig.safeParse(body);
    if (!parsed.success) return { status: 400, body: { error: 'invalid config', issues: parsed.error.issues } };
    const config = parsed.data;
    if (config.replace) {
      chaos.setFaults(null);
      chaos.setLatency(null);
    }
    if (config.faults) chaos.setFaults(config.faults);
    if (config.latency) chaos.setLatency(config.latency);
    if (config.timeoutHoldMs !== undefined) chaos.state.timeoutHoldMs = config.timeoutHoldMs;
    return { status: 200, body: chaos.state };
  }
  if (method === 'POST' && path === '/__admin/reset') {
    chaos.resetCalls();
    chaos.setFaults(null);
    chaos.setLatency(null);
    chaos.setFaults(deps.initial.faults);
    chaos.setLatency(deps.initial.latency);
    return { status: 200, body: { ok: true } };
  }
  if (method === 'GET' && path === '/__admin/sample-people') {
    const q = url.searchParams;
    const knownTo = q.get('knownTo') as Coverage | null;
    if (knownTo && !COVERAGES.includes(knownTo)) return { status: 400, body: { error: `knownTo must be one of ${COVERAGES.join(', ')}` } };
    const flag = (name: string) => (q.has(name) ? q.get(name) === 'true' : undefined);
    const people = world.samplePeople(
      { knownTo: knownTo ?? undefined, nonEnglishTitle: flag('nonEnglishTitle'), withPosts: flag('withPosts'), withPromptInjection: flag('withPromptInjection') },
      Math.min(1000, Number(q.get('limit') ?? 10) || 10),
    );
    return { status: 200, body: { people: people.map((p) => ({ email: p.email, fullName: p.fullName, title: p.title, company: world.companies[p.company].name, domain: world.companies[p.company].domain, knownTo: p.coverage, linkedinUrl: p.linkedinUrl })) } };
  }
  return { status: 404, body: { error: 'no such admin endpoint' } };
}
