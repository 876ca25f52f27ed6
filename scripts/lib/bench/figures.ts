// Every figure a bench (or cluster) run prints, as one flat object keyed by
// stable dotted names (`--json FILE`), so that two runs compare key by key
// without reading tables (docs/benchmarks.md#figures-as-json).

export type Figures = Record<string, number>;

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * Every number under `value`, named by its path: object keys in snake_case,
 * array entries by their `inFlight` (`in_flight_50`) or their index.
 * Strings, booleans and nulls are left out: figures are numbers.
 */
export function flattenFigures(value: unknown, prefix: string): Figures {
  if (typeof value === 'number') return Number.isFinite(value) ? { [prefix]: value } : {};
  if (Array.isArray(value)) {
    return Object.assign({}, ...value.map((entry, index) => {
      const inFlight = (entry as { inFlight?: unknown } | null)?.inFlight;
      return flattenFigures(entry, `${prefix}.${typeof inFlight === 'number' ? `in_flight_${inFlight}` : index}`);
    }));
  }
  if (value && typeof value === 'object') {
    return Object.assign({}, ...Object.entries(value).map(([key, entry]) => flattenFigures(entry, prefix ? `${prefix}.${snake(key)}` : snake(key))));
  }
  return {};
}

interface Level {
  inFlight: number;
}

/** The names other tools and the issue tracker quote, beside the generic ones; they never change meaning. */
export function namedFigures(results: {
  overhead?: Array<Level & { cpu: { stackMs: number }; serverRatio: object }>;
  webhooks?: { levels: Array<Level & { latencyMs: object }> };
  crm?: { callsPerContact: number; wallMs: number; contacts: number; inFlight: number; researchPathMs: number };
  crmProviders?: Array<{ provider: string; callsPerContact: number; wallMs: number; criticalPathMs: number }>;
  lists?: { wallMs: number; lowerBoundMs: number };
  mcp?: { uncached?: { callsToComplete: { p95: number }; progressGapMs: { max: number } }; cached?: { callMs: { p95: number } } };
  tracing?: { on: { cpu: { stackMs: number } }; off: { cpu: { stackMs: number } }; costMs: number };
}): Figures {
  const figures: Figures = {};
  for (const level of results.overhead ?? []) {
    figures[`overhead.cpu_per_job_ms.in_flight_${level.inFlight}`] = level.cpu.stackMs;
    Object.assign(figures, flattenFigures(level.serverRatio, `overhead.ratio.in_flight_${level.inFlight}`));
  }
  if (results.mcp?.cached) figures['mcp.cached_call_ms.p95'] = results.mcp.cached.callMs.p95;
  if (results.mcp?.uncached) {
    figures['mcp.calls_to_complete.p95'] = results.mcp.uncached.callsToComplete.p95;
    figures['mcp.progress_gap_ms.max'] = results.mcp.uncached.progressGapMs.max;
  }
  for (const level of results.webhooks?.levels ?? []) {
    Object.assign(figures, flattenFigures(level.latencyMs, `webhooks.first_attempt_ms.in_flight_${level.inFlight}`));
  }
  if (results.crm) {
    const { crm } = results;
    figures['crm.hubspot_calls_per_contact'] = crm.callsPerContact;
    figures['crm.run_s'] = crm.wallMs / 1000;
    // ceil(contacts ÷ contacts in flight) × one contact's research path: the run's bound with no CRM call at all.
    figures['crm.critical_path_s'] = (Math.ceil(crm.contacts / crm.inFlight) * crm.researchPathMs) / 1000;
    // The same per CRM: crm.<crm>.calls_per_contact, .run_s, .critical_path_s.
    figures['crm.hubspot.calls_per_contact'] = figures['crm.hubspot_calls_per_contact'];
    figures['crm.hubspot.run_s'] = figures['crm.run_s'];
    figures['crm.hubspot.critical_path_s'] = figures['crm.critical_path_s'];
  }
  for (const run of results.crmProviders ?? []) {
    figures[`crm.${run.provider}.calls_per_contact`] = run.callsPerContact;
    figures[`crm.${run.provider}.run_s`] = run.wallMs / 1000;
    figures[`crm.${run.provider}.critical_path_s`] = run.criticalPathMs / 1000;
  }
  if (results.lists) {
    figures['lists.run_s'] = results.lists.wallMs / 1000;
    figures['lists.lower_bound_s'] = results.lists.lowerBoundMs / 1000;
  }
  if (results.tracing) {
    // CPU per uncached job with tracing on; off and the difference beside it, measured in the same run.
    figures['tracing.cpu_per_job_ms'] = results.tracing.on.cpu.stackMs;
    figures['tracing.cpu_per_job_ms_off'] = results.tracing.off.cpu.stackMs;
    figures['tracing.cost_per_job_ms'] = results.tracing.costMs;
  }
  return figures;
}

/** Sorted by name: a diff of two files lines up. */
export function figuresJson(figures: Figures): string {
  return `${JSON.stringify(Object.fromEntries(Object.entries(figures).sort(([a], [b]) => a.localeCompare(b))), null, 2)}\n`;
}
