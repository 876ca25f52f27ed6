import { createRng } from './prng.ts';

/** Endpoint names double as the `apisCalled` names the real clients report. */
export const ENDPOINTS = [
  'pdl.person', 'pdl.company', 'pdl.person_search',
  'apollo.people_match', 'apollo.organization_enrich',
  'social.person_posts', 'social.profiles', 'social.company_posts',
  'news.everything', 'site',
] as const;
export type EndpointName = (typeof ENDPOINTS)[number];

export type FaultKind = 'timeout' | 'rate_limit' | 'server_error' | 'unavailable' | 'ok';

export interface EndpointFaults {
  /** Probability (0..1) that a call is held past any client timeout. */
  timeoutRate?: number;
  /** Probability of a 429 carrying `Retry-After: retryAfterSeconds`. */
  rateLimitRate?: number;
  retryAfterSeconds?: number;
  /** Probability of a 500; `unavailableRate` of a 503. */
  serverErrorRate?: number;
  unavailableRate?: number;
  /** Outcomes forced for the next calls, in order, before the rates apply. */
  script?: FaultKind[];
}

export interface LatencyConfig {
  meanMs: number;
  /** Uniform spread around the mean; 0 or absent means a fixed delay. */
  jitterMs?: number;
}

/** Keyed by endpoint name; `*` applies to endpoints without their own entry. */
export type FaultsConfig = Partial<Record<EndpointName | '*', EndpointFaults>>;
export type LatencyMap = Partial<Record<EndpointName | '*', LatencyConfig>>;

export interface ChaosState {
  faults: FaultsConfig;
  latency: LatencyMap;
  /** How long a "timeout" holds the reply when the client does not give up first. */
  timeoutHoldMs: number;
}

export function createChaos(seed: number, initial: { faults?: FaultsConfig; latency?: LatencyMap; timeoutHoldMs?: number }) {
  // Seeded so a chaos run can be replayed with the same sequence of faults.
  const rng = createRng(seed ^ 0x5eed_fa17);
  const state: ChaosState = {
    faults: structuredClone(initial.faults ?? {}),
    latency: structuredClone(initial.latency ?? {}),
    timeoutHoldMs: initial.timeoutHoldMs ?? 30_000,
  };
  const counters = new Map<string, number>();

  return {
    state,
    count(endpoint: EndpointName) {
      counters.set(endpoint, (counters.get(endpoint) ?? 0) + 1);
    },
    calls(endpoint?: EndpointName): number {
      if (endpoint) return counters.get(endpoint) ?? 0;
      let total = 0;
      for (const value of counters.values()) total += value;
      return total;
    },
    snapshot(): Record<string, number> {
      return Object.fromEntries(ENDPOINTS.map((name) => [name, counters.get(name) ?? 0]));
    },
    resetCalls() {
      counters.clear();
    },
    /** Replaces the entries named in `faults`; `null` clears all faults. */
    setFaults(faults: FaultsConfig | null) {
      if (faults === null) state.faults = {};
      else Object.assign(state.faults, structuredClone(faults));
    },
    setLatency(latency: LatencyMap | null) {
      if (latency === null) state.latency = {};
      else Object.assign(state.latency, structuredClone(latency));
    },
    delayFor(endpoint: EndpointName): number {
      const config = state.latency[endpoint] ?? state.latency['*'];
      if (!config) return 0;
      const jitter = config.jitterMs ?? 0;
      return Math.max(0, Math.round(config.meanMs + (rng.next() * 2 - 1) * jitter));
    },
    outcomeFor(endpoint: EndpointName): { kind: FaultKind; retryAfterSeconds: number } {
      const config = state.faults[endpoint] ?? state.faults['*'] ?? {};
      const retryAfterSeconds = config.retryAfterSeconds ?? 1;
      const scripted = config.script?.shift();
      if (scripted) return { kind: scripted, retryAfterSeconds };
      let roll = rng.next();
      for (const [kind, rate] of [
        ['timeout', config.timeoutRate], ['rate_limit', config.rateLimitRate],
        ['server_error', config.serverErrorRate], ['unavailable', config.unavailableRate],
      ] as const) {
        roll -= rate ?? 0;
        if (roll < 0) return { kind, retryAfterSeconds };
      }
      return { kind: 'ok', retryAfterSeconds };
    },
  };
}

export type Chaos = ReturnType<typeof createChaos>;
