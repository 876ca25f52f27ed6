import { describe, expect, it } from 'vitest';
import { figuresJson, flattenFigures, namedFigures } from '../../scripts/lib/bench/figures.ts';

describe('bench figures as JSON', () => {
  it('names every number by its path, levels by their jobs in flight, and leaves out what is not a number', () => {
    const figures = flattenFigures({ cacheHits: { latencyMs: { p50: 51, p95: 83 }, failed: 0, note: 'x' }, levels: [{ inFlight: 50, jobsPerSecond: 7.5 }, { value: 1 }], missing: null }, 'r');
    expect(figures).toEqual({
      'r.cache_hits.latency_ms.p50': 51,
      'r.cache_hits.latency_ms.p95': 83,
      'r.cache_hits.failed': 0,
      'r.levels.in_flight_50.in_flight': 50,
      'r.levels.in_flight_50.jobs_per_second': 7.5,
      'r.levels.1.value': 1,
    });
  });

  it('gives the named figures their stable names', () => {
    const percentiles = { p50: 1, p95: 2, p99: 3, max: 4, mean: 1.5 };
    const figures = namedFigures({
      overhead: [{ inFlight: 200, cpu: { stackMs: 88.3 }, serverRatio: percentiles }],
      webhooks: { levels: [{ inFlight: 1, latencyMs: { ...percentiles, p95: 77 } }, { inFlight: 50, latencyMs: { ...percentiles, p95: 210 } }] },
      crm: { callsPerContact: 0.12, wallMs: 19_400, contacts: 50, inFlight: 13, researchPathMs: 3_400 },
      crmProviders: [
        { provider: 'pipedrive', callsPerContact: 2.1, wallMs: 21_000, criticalPathMs: 13_600 },
        { provider: 'salesforce', callsPerContact: 0.2, wallMs: 18_500, criticalPathMs: 13_600 },
      ],
      lists: { wallMs: 61_000, lowerBoundMs: 52_000 },
    });
    expect(figures).toMatchObject({
      'overhead.cpu_per_job_ms.in_flight_200': 88.3,
      'overhead.ratio.in_flight_200.p50': 1,
      'webhooks.first_attempt_ms.in_flight_1.p95': 77,
      'webhooks.first_attempt_ms.in_flight_50.p95': 210,
      'crm.hubspot_calls_per_contact': 0.12,
      'crm.run_s': 19.4,
      'crm.critical_path_s': 13.6,
      'crm.hubspot.calls_per_contact': 0.12,
      'crm.hubspot.run_s': 19.4,
      'crm.pipedrive.calls_per_contact': 2.1,
      'crm.pipedrive.run_s': 21,
      'crm.pipedrive.critical_path_s': 13.6,
      'crm.salesforce.calls_per_contact': 0.2,
      'crm.salesforce.run_s': 18.5,
      'lists.run_s': 61,
      'lists.lower_bound_s': 52,
    });
  });

  it('writes them sorted by name, one per line', () => {
    expect(figuresJson({ 'b.x': 2, 'a.y': 1 })).toBe('{\n  "a.y": 1,\n  "b.x": 2\n}\n');
  });
});
