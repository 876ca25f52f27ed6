/** Counts from a schemathesis NDJSON event report (`--report ndjson`, schemathesis 4). */
export interface FuzzSummary {
  /** HTTP requests sent (one interaction each). */
  requests: number;
  /** Replies by HTTP status. */
  statuses: Record<string, number>;
  /** Replies with a 5xx status. */
  serverErrors: number;
  /** Failed checks that are 5xx (`not_a_server_error`). */
  serverErrorFailures: number;
  /** Failed checks that compare a reply with the schema (`response_schema_conformance`). */
  schemaMismatches: number;
  /** Requests that got no reply (connection error, timeout). */
  networkErrors: number;
  /** 200 replies of the status endpoint by job status (`completed`, `processing`, …). */
  jobStatuses: Record<string, number>;
  /** One line per distinct failed check: name, operation, status. */
  failures: string[];
}

interface Interaction {
  request: { method: string; uri: string };
  response: { status_code: number; content?: { $base64?: string } | string } | null;
}
interface Check {
  name: string;
  status: string;
  failure_info?: { failure?: { operation?: string; title?: string; message?: string } };
}
interface ScenarioFinished {
  recorder?: { label?: string; interactions?: Record<string, Interaction>; checks?: Record<string, Check[]> };
}

export function summariseReport(ndjson: string): FuzzSummary {
  const summary: FuzzSummary = {
    requests: 0,
    statuses: {},
    serverErrors: 0,
    serverErrorFailures: 0,
    schemaMismatches: 0,
    networkErrors: 0,
    jobStatuses: {},
    failures: [],
  };
  const seen = new Set<string>();
  for (const line of ndjson.split('\n')) {
    if (!line.includes('"ScenarioFinished"')) continue;
    const event = JSON.parse(line).ScenarioFinished as ScenarioFinished | undefined;
    const recorder = event?.recorder;
    if (!recorder) continue;
    for (const [caseId, interaction] of Object.entries(recorder.interactions ?? {})) {
      summary.requests += 1;
      const status = interaction.response?.status_code;
      if (status === undefined) {
        summary.networkErrors += 1;
        continue;
      }
      summary.statuses[status] = (summary.statuses[status] ?? 0) + 1;
      if (status >= 500) summary.serverErrors += 1;
      const jobStatus = status === 200 ? jobStatusOf(interaction) : null;
      if (jobStatus) summary.jobStatuses[jobStatus] = (summary.jobStatuses[jobStatus] ?? 0) + 1;
      for (const check of recorder.checks?.[caseId] ?? []) {
        if (check.status === 'success' || check.status === 'skip') continue;
        const failure = check.failure_info?.failure;
        const line = `${check.name}: ${interaction.request.method} ${new URL(interaction.request.uri).pathname} → ${status} ${failure?.title ?? ''} ${(failure?.message ?? '').slice(0, 300)}`.trim();
        if (seen.has(line)) continue;
        seen.add(line);
        summary.failures.push(line);
        if (check.name === 'response_schema_conformance') summary.schemaMismatches += 1;
        if (check.name === 'not_a_server_error') summary.serverErrorFailures += 1;
      }
    }
  }
  return summary;
}

function jobStatusOf(interaction: Interaction): string | null {
  if (!interaction.request.uri.includes('/research-status/')) return null;
  const content = interaction.response?.content;
  const text = typeof content === 'string' ? content : content?.$base64 ? Buffer.from(content.$base64, 'base64').toString('utf8') : '';
  try {
    const status = (JSON.parse(text) as { status?: unknown }).status;
    return typeof status === 'string' ? status : null;
  } catch {
    return null;
  }
}
