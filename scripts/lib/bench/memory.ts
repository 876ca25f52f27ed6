import { setTimeout as sleep } from 'node:timers/promises';
import { residentMiB, type BenchStack } from './bench-stack.ts';
import { collectGarbage } from './collect-garbage.ts';
import { runClosedLoop, runJob } from './research-client.ts';

export interface MemoryResult {
  jobsAtFirstReading: number;
  jobsAtLastReading: number;
  concurrency: number;
  failed: number;
  jobsPerSecond: number;
  /** MiB of VmRSS, after the first and the last batch, each right after a full garbage collection. */
  worker: { first: number; last: number; growthPercent: number };
  api: { first: number; last: number; growthPercent: number };
}

/**
 * Resident size of the worker and the API after `firstAt` and after `total`
 * jobs. The bulk jobs are cache hits (each still a POST, a workflow and status
 * polls), so thousands fit in a few minutes.
 */
export async function measureMemory(
  stack: BenchStack,
  options: { email: string; firstAt: number; total: number; concurrency: number; log: (line: string) => void },
): Promise<MemoryResult> {
  const apiKey = await stack.newApiKey('memory');
  await runJob(stack.apiUrl, apiKey, options.email); // fills the cache
  let failed = 0;
  let done = 0;
  const batch = async (count: number) => {
    const { wallMs } = await runClosedLoop(count, options.concurrency, async () => {
      const job = await runJob(stack.apiUrl, apiKey, options.email);
      if (job.status !== 'completed') failed += 1;
      done += 1;
      if (done % 1000 === 0) options.log(`  memory: ${done} jobs`);
    });
    return wallMs;
  };
  const reading = async () => {
    // Let in-flight work settle (timers, sockets), then collect: between two
    // collections the API's RSS swings by ~150 MiB under this load.
    await sleep(3_000);
    await Promise.all([collectGarbage(stack.inspectorPorts.worker), collectGarbage(stack.inspectorPorts.api)]);
    await sleep(1_000);
    return { worker: residentMiB(stack.pids.worker), api: residentMiB(stack.pids.api) };
  };
  let wallMs = await batch(options.firstAt);
  const first = await reading();
  wallMs += await batch(options.total - options.firstAt);
  const last = await reading();
  const growth = (a: number, b: number) => Math.round(((b - a) / a) * 1000) / 10;
  const mib = (v: number) => Math.round(v * 10) / 10;
  return {
    jobsAtFirstReading: options.firstAt,
    jobsAtLastReading: options.total,
    concurrency: options.concurrency,
    failed,
    jobsPerSecond: Math.round((options.total / (wallMs / 1000)) * 10) / 10,
    worker: { first: mib(first.worker), last: mib(last.worker), growthPercent: growth(first.worker, last.worker) },
    api: { first: mib(first.api), last: mib(last.api), growthPercent: growth(first.api, last.api) },
  };
}
