import type { Chaos, FaultsConfig, LatencyMap } from './faults.ts';
import type { Reply } from './provider-api.ts';
import type { World } from './world.ts';
import type { Coverage } from './generate-world.ts';

interface AdminDeps {
  chaos: Chaos;
  world: World;
  initial: { faults: FaultsConfig; latency: LatencyMap };
}

const COVERAGES: readonly Coverage[] = ['pdl', 'apollo', 'both', 'none'];

// Lets other processes (tests, benchmarks, chaos scripts) drive the world:
//   GET  /__admin/calls                 counters per endpoint
//   GET  /__admin/config                current faults and latency
//   POST /__admin/config                {faults?, latency?, timeoutHoldMs?, replace?}
//   POST /__admin/reset                 counters, faults and latency back to start
//   GET  /__admin/sample-people?knownTo=pdl&nonEnglishTitle=true&withPosts=true&limit=5
export function handleAdmin(method: string, url: URL, body: Record<string, unknown> | null, deps: AdminDeps): Reply {
  const { chaos, world } = deps;
  const path = url.pathname;
  if (method === 'GET' && path === '/__admin/calls') {
    return { status: 200, body: { total: chaos.calls(), calls: chaos.snapshot() } };
  }
  if (method === 'GET' && path === '/__admin/config') return { status: 200, body: chaos.state };
  if (method === 'POST' && path === '/__admin/config') {
    if (body === null) return { status: 400, body: { error: 'invalid JSON body' } };
    if (body.replace === true) {
      chaos.setFaults(null);
      chaos.setLatency(null);
    }
    if (body.faults && typeof body.faults === 'object') chaos.setFaults(body.faults as FaultsConfig);
    if (body.latency && typeof body.latency === 'object') chaos.setLatency(body.latency as LatencyMap);
    if (typeof body.timeoutHoldMs === 'number') chaos.state.timeoutHoldMs = body.timeoutHoldMs;
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
      { knownTo: knownTo ?? undefined, nonEnglishTitle: flag('nonEnglishTitle'), withPosts: flag('withPosts') },
      Math.min(1000, Number(q.get('limit') ?? 10) || 10),
    );
    return { status: 200, body: { people: people.map((p) => ({ email: p.email, fullName: p.fullName, title: p.title, company: world.companies[p.company].name, domain: world.companies[p.company].domain, knownTo: p.coverage, linkedinUrl: p.linkedinUrl })) } };
  }
  return { status: 404, body: { error: 'no such admin endpoint' } };
}
