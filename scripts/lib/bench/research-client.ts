import { performance } from 'node:perf_hooks';

/** Past the 3-minute deadline a job must have ended. */
const JOB_TIMEOUT_MS = 200_000;

export interface JobSample {
  researchId: string;
  email: string;
  status: 'completed' | 'failed';
  /** POST /research sent → `completed` (or `failed`) seen on the status endpoint. */
  totalMs: number;
  postMs: number;
  polls: number;
  isFromCache: boolean;
}

/**
 * One job as a client runs it: POST /research, then long polls of
 * GET /research-status/{id}?wait=10 (the extension a client would use) until
 * the job ends; or, with `pollMs`, plain GETs that far apart.
 */
export async function runJob(apiUrl: string, apiKey: string, email: string, options: { pollMs?: number } = {}): Promise<JobSample> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const started = performance.now();
  const accepted = await fetch(`${apiUrl}/research`, { method: 'POST', headers, body: JSON.stringify({ email }) });
  const acceptedBody = (await accepted.json()) as { research_id?: string };
  const postMs = performance.now() - started;
  if (accepted.status !== 202 || !acceptedBody.research_id) throw new Error(`POST /research answered ${accepted.status}: ${JSON.stringify(acceptedBody)}`);
  const researchId = acceptedBody.research_id;
  for (let polls = 1; ; polls += 1) {
    if (options.pollMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.pollMs));
    const path = `/research-status/${researchId}${options.pollMs === undefined ? '?wait=10' : ''}`;
    const reply = await fetch(`${apiUrl}${path}`, { headers: { authorization: headers.authorization } });
    const body = (await reply.json()) as { status?: string; _meta?: { prospect?: { from_cache?: boolean } } };
    if (reply.status !== 200) throw new Error(`GET ${path} answered ${reply.status}: ${JSON.stringify(body)}`);
    if (body.status === 'completed' || body.status === 'failed') {
      return { researchId, email, status: body.status, totalMs: performance.now() - started, postMs, polls, isFromCache: body._meta?.prospect?.from_cache === true };
    }
    if (performance.now() - started > JOB_TIMEOUT_MS) throw new Error(`${researchId} still ${body.status} after ${JOB_TIMEOUT_MS} ms`);
  }
}

/** Runs `jobs` through `concurrency` clients, each starting its next job as soon as the last one ends. */
export async function runClosedLoop<T>(count: number, concurrency: number, job: (index: number) => Promise<T>): Promise<{ results: T[]; wallMs: number }> {
  const results: T[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        results.push(await job(index));
      }
    }),
  );
  return { results, wallMs: performance.now() - started };
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarise(values: number[], digits = 1): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const scale = 10 ** digits;
  const round = (v: number) => Math.round(v * scale) / scale;
  return {
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
    mean: round(sorted.reduce((sum, v) => sum + v, 0) / (sorted.length || 1)),
  };
}
