import { completionMsByJob, type BenchStack } from './bench-stack.ts';
import { profileHistories } from './history-profile.ts';
import { runClosedLoop, runJob, summarise, type Percentiles } from './research-client.ts';

export interface CacheHitResult {
  jobs: number;
  concurrency: number;
  latencyMs: Percentiles;
  phasesMs: { post: Percentiles; submittedToCompleted: Percentiles; clientOverhead: Percentiles };
  jobsPerSecond: number;
  failed: number;
  notFromCache: number;
  temporalHistoryMeanGapsMs: Record<string, number>;
}

/**
 * Latency of a cache-hit job, POST /research → `completed` seen on the status
 * endpoint (long polls), after one uncached job fills the cache and a few
 * unmeasured hits warm the processes.
 */
export async function measureCacheHits(stack: BenchStack, options: { email: string; jobs: number; concurrency: number; warmup: number }): Promise<CacheHitResult> {
  const apiKey = await stack.newApiKey('cache-hit');
  const warm = await runJob(stack.apiUrl, apiKey, options.email);
  if (warm.status !== 'completed') throw new Error(`the job filling the cache ended ${warm.status}`);
  for (let index = 0; index < options.warmup; index += 1) await runJob(stack.apiUrl, apiKey, options.email);
  const { results: samples, wallMs } = await runClosedLoop(options.jobs, options.concurrency, () => runJob(stack.apiUrl, apiKey, options.email));

  // Where the time went, from the job rows (one clock: the API and the worker run on this machine).
  const serverMs = await completionMsByJob(stack, samples.map((s) => s.researchId));
  const history = await profileHistories(stack.temporalAddress, samples.slice(-20).map((s) => s.researchId));
  return {
    jobs: samples.length,
    concurrency: options.concurrency,
    latencyMs: summarise(samples.map((s) => s.totalMs)),
    phasesMs: {
      post: summarise(samples.map((s) => s.postMs)),
      submittedToCompleted: summarise([...serverMs.values()]),
      // What the client waited beyond the server's own submitted → completed: HTTP, auth, status polling.
      clientOverhead: summarise(samples.map((s) => s.totalMs - (serverMs.get(s.researchId) ?? 0))),
    },
    jobsPerSecond: Math.round((samples.length / (wallMs / 1000)) * 10) / 10,
    failed: samples.filter((s) => s.status !== 'completed').length,
    notFromCache: samples.filter((s) => s.status === 'completed' && !s.isFromCache).length,
    temporalHistoryMeanGapsMs: Object.fromEntries(history),
  };
}
