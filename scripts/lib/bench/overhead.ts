import { completionMsByJob, type BenchStack } from './bench-stack.ts';
import { sampleCalls, type CallsAtMost } from './call-gauges.ts';
import { asLatencyMap, candidateEmails, criticalPathMs, recordProspectCalls, type EndpointLatencies, type ProspectCalls } from './critical-path.ts';
import { jobTimelines, type JobTimeline } from './history-profile.ts';
import { runClosedLoop, runJob, summarise, type Percentiles } from './research-client.ts';
import { cpuBetween, cpuPerJob, stackCpuMs, type CpuPerJob } from './stack-cpu.ts';

export interface OverheadLevel {
  inFlight: number;
  jobs: number;
  /** How the client watched for completion: plain GETs this far apart, or null for long polls. */
  pollMs: number | null;
  /** POST → `completed` seen by the client ÷ the job's critical path (up to `pollMs` late with plain GETs). */
  ratio: Percentiles;
  /** The same from the job row (submitted_at → completed_at, server clock). */
  serverRatio: Percentiles;
  totalMs: Percentiles;
  criticalPathMs: Percentiles;
  jobsPerSecond: number;
  failed: number;
  fromCache: number;
  modelCallsPerJob: number;
  /** Mean phases of the level's last jobs, from their Temporal histories. */
  timeline: JobTimeline;
  /** CPU of every process of the stack (/proc) while the level ran, per job. */
  cpu: CpuPerJob;
  /** The most calls in flight and waiting for the account's turn (one account sends every job). */
  calls: CallsAtMost;
}

export interface OverheadOptions {
  levels: number[];
  jobsAt: (inFlight: number) => number;
  providerLatenciesMs: EndpointLatencies;
  modelLatencyMs: number;
  warmupJobs: number;
  /** Plain status GETs this far apart instead of long polls (see runJob). */
  pollMs?: number;
  log: (line: string) => void;
}

/**
 * Orchestration overhead: each job researches a distinct uncached prospect
 * (its own company too) on a Scale account, so every part runs; its time from
 * submission to `completed` is divided by the critical path of the sandbox's
 * fixed latencies for that prospect's provider calls.
 */
export async function measureOverhead(stack: BenchStack, options: OverheadOptions): Promise<OverheadLevel[]> {
  const { log } = options;
  const needed = options.warmupJobs + options.levels.reduce((sum, level) => sum + options.jobsAt(level), 0);
  log(`Recording the provider calls of ${needed} prospects (sandbox without latency)…`);
  await stack.setProviderLatency({});
  const prospects: ProspectCalls[] = [];
  const candidates = candidateEmails(needed * 2, process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined);
  for (let index = 0; index < candidates.length && prospects.length < needed; index += 8) {
    const recorded = await Promise.all(candidates.slice(index, index + 8).map((email) => recordProspectCalls(stack.providerUrl, email)));
    for (const calls of recorded) if (calls && prospects.length < needed) prospects.push(calls);
  }
  if (prospects.length < needed) throw new Error(`only ${prospects.length} of ${needed} prospects have every part`);

  await stack.setProviderLatency(asLatencyMap(options.providerLatenciesMs));
  await stack.setModelLatency(options.modelLatencyMs);
  const apiKey = await stack.newApiKey('overhead');
  const pathOf = (calls: ProspectCalls) => criticalPathMs(calls, options.providerLatenciesMs, options.modelLatencyMs);
  let cursor = 0;
  const take = (count: number) => {
    cursor += count;
    return prospects.slice(cursor - count, cursor);
  };

  log(`${options.warmupJobs} unmeasured uncached jobs to warm the processes…`);
  const warmup = take(options.warmupJobs);
  await runClosedLoop(warmup.length, 2, (index) => runJob(stack.apiUrl, apiKey, warmup[index].email));

  const levels: OverheadLevel[] = [];
  for (const inFlight of options.levels) {
    const batch = take(options.jobsAt(inFlight));
    const modelCallsBefore = await modelCalls(stack);
    log(`Overhead: ${batch.length} uncached jobs, ${inFlight} in flight…`);
    const cpuBefore = stackCpuMs();
    const sampler = sampleCalls(stack.researchMetricsUrl);
    const { results, wallMs } = await runClosedLoop(batch.length, inFlight, (index) => runJob(stack.apiUrl, apiKey, batch[index].email, { pollMs: options.pollMs }))
      .finally(() => sampler.stop());
    const cpu = cpuPerJob(cpuBetween(cpuBefore, stackCpuMs()), results.length);
    const calls = await sampler.most;
    const modelCallsAfter = await modelCalls(stack);
    const pathByEmail = new Map(batch.map((calls) => [calls.email, pathOf(calls)]));
    const serverMs = await completionMsByJob(stack, results.map((s) => s.researchId));
    const timeline = await jobTimelines(stack.temporalAddress, results.slice(-20).map((s) => s.researchId));
    levels.push({
      inFlight,
      jobs: results.length,
      pollMs: options.pollMs ?? null,
      ratio: summarise(results.map((s) => s.totalMs / pathByEmail.get(s.email)!), 3),
      serverRatio: summarise(results.map((s) => (serverMs.get(s.researchId) ?? NaN) / pathByEmail.get(s.email)!), 3),
      totalMs: summarise(results.map((s) => s.totalMs), 0),
      criticalPathMs: summarise([...pathByEmail.values()], 0),
      jobsPerSecond: Math.round((results.length / (wallMs / 1000)) * 10) / 10,
      failed: results.filter((s) => s.status !== 'completed').length,
      fromCache: results.filter((s) => s.isFromCache).length,
      modelCallsPerJob: Math.round(((modelCallsAfter - modelCallsBefore) / results.length) * 100) / 100,
      timeline,
      cpu,
      calls,
    });
  }
  return levels;
}

async function modelCalls(stack: BenchStack): Promise<number> {
  const reply = (await (await fetch(`${stack.modelOrigin}/__admin/calls`)).json()) as { calls: number };
  return reply.calls;
}
