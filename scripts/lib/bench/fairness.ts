import { Client, Connection } from '@temporalio/client';
import { Account } from '../../../db/entities/index.ts';
import { RESEARCH_DEADLINE_MS, RESEARCH_TASK_QUEUE } from '../../../domain/research/contract.ts';
import { hashApiKey } from '../../../services/accounts/api-keys.ts';
import { startListRunWorkflow } from '../../../services/lists/runs.ts';
import { createListDraft, startList } from '../../../services/lists/lists.ts';
import type { BenchStack } from './bench-stack.ts';
import { sampleCalls, type CallsAtMost } from './call-gauges.ts';
import { asLatencyMap, candidateEmails, type EndpointLatencies } from './critical-path.ts';
import { runClosedLoop, runJob, summarise } from './research-client.ts';

// Fairness under overload: a large account bursts uncached API jobs and
// starts a big list while small accounts each send a few API jobs and a small
// list. Each group is also measured alone on the same stack (new accounts, so
// nothing is cached), and the ratios say what the burst cost the small
// accounts and what sharing cost the large one.

export interface FairnessSize {
  bigApiJobs: number;
  bigListRows: number;
  smallAccounts: number;
  smallApiJobs: number;
  smallListRows: number;
}

export interface FairnessRun {
  /** The small accounts' API jobs, POST → completed (ms). */
  smallApiP95Ms: number;
  /** Their lists' completion time, started → finished (ms), the mean over the lists. */
  smallListMs: number;
  /** The large account's jobs (API and rows) per second, first POST → last end. */
  bigJobsPerSecond: number;
  failedJobs: number;
}

export interface FairnessModeResult {
  isFairnessOn: boolean;
  /** While the large account ran alone: how close one account at full speed comes to the caps. */
  bigAloneCalls: CallsAtMost;
  alone: { small: FairnessRun; big: FairnessRun };
  together: FairnessRun;
  /** Together over alone: ≤ 1.5 is the target for the two small ones, ≥ 0.9 for the big one. */
  smallApiP95Ratio: number;
  smallListRatio: number;
  bigThroughputRatio: number;
}

export interface FairnessBenchResult {
  size: FairnessSize;
  /** Either may be left out (`--fairness-modes`). */
  on: FairnessModeResult | null;
  off: FairnessModeResult | null;
}

interface Group {
  apiKey: string;
  accountId: number;
  apiEmails: string[];
  listEmails: string[];
}

let groupCount = 0;

async function newGroup(stack: BenchStack, label: string, apiEmails: string[], listEmails: string[]): Promise<Group> {
  const apiKey = await stack.newApiKey(`fairness-${label}-${groupCount++}`);
  const [{ account_id: accountId }]: { account_id: number }[] = await stack.orm.em.fork().execute('select account_id from api_key where key_hash = ?', [hashApiKey(apiKey)]);
  return { apiKey, accountId, apiEmails, listEmails };
}

/** Starts the group's list now; resolves with its wall time once it ended. */
async function runList(stack: BenchStack, temporal: Client, group: Group): Promise<number> {
  const account = await stack.orm.em.fork().findOneOrFail(Account, group.accountId);
  const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: group.listEmails.join('\n'), name: 'fairness' }, new Date());
  await startList(stack.orm.em.fork(), group.accountId, draft.id, {}, new Date());
  await startListRunWorkflow({ temporal, taskQueue: RESEARCH_TASK_QUEUE, deadlineMs: RESEARCH_DEADLINE_MS }, stack.orm.em.fork(), draft.id, new Date());
  for (;;) {
    const [list]: Array<{ wall_ms: number | null }> = await stack.orm.em.fork().getConnection().execute(
      'select extract(epoch from finished_at - started_at) * 1000 as wall_ms from prospect_list where id = ?',
      [draft.id],
    );
    if (list?.wall_ms !== null && list?.wall_ms !== undefined) return Number(list.wall_ms);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Every API job of the group at once (a burst), and its list beside them. */
async function runGroup(stack: BenchStack, temporal: Client, group: Group): Promise<{ apiMs: number[]; listMs: number; failed: number }> {
  const [api, listMs] = await Promise.all([
    runClosedLoop(group.apiEmails.length, group.apiEmails.length, (index) => runJob(stack.apiUrl, group.apiKey, group.apiEmails[index]!).then(
      (sample) => ({ ms: sample.totalMs, failed: sample.status !== 'completed' }),
      () => ({ ms: NaN, failed: true }),
    )),
    runList(stack, temporal, group),
  ]);
  return { apiMs: api.results.map((each) => each.ms).filter(Number.isFinite), listMs, failed: api.results.filter((each) => each.failed).length };
}

async function runSmall(stack: BenchStack, temporal: Client, groups: Group[]): Promise<Omit<FairnessRun, 'bigJobsPerSecond'>> {
  const runs = await Promise.all(groups.map((group) => runGroup(stack, temporal, group)));
  return {
    smallApiP95Ms: summarise(runs.flatMap((run) => run.apiMs), 0).p95,
    smallListMs: Math.round(runs.reduce((sum, run) => sum + run.listMs, 0) / runs.length),
    failedJobs: runs.reduce((sum, run) => sum + run.failed, 0),
  };
}

async function runBig(stack: BenchStack, temporal: Client, group: Group): Promise<{ jobsPerSecond: number; failed: number; calls: CallsAtMost }> {
  const started = performance.now();
  const sampler = sampleCalls(stack.researchMetricsUrl);
  const run = await runGroup(stack, temporal, group).finally(() => sampler.stop());
  const seconds = (performance.now() - started) / 1000;
  return { jobsPerSecond: Math.round(((group.apiEmails.length + group.listEmails.length) / seconds) * 100) / 100, failed: run.failed, calls: await sampler.most };
}

export async function measureFairness(
  stack: BenchStack,
  options: { size: FairnessSize; isFairnessOn: boolean; providerLatenciesMs: EndpointLatencies; modelLatencyMs: number; log: (line: string) => void },
): Promise<FairnessModeResult> {
  const { size, log } = options;
  const mode = options.isFairnessOn ? 'fairness on' : 'fairness off';
  // Accounts have caches of their own: the same people are uncached for each new account.
  const emails = candidateEmails(size.bigApiJobs + size.bigListRows + size.smallApiJobs + size.smallListRows, process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined);
  const bigApi = emails.slice(0, size.bigApiJobs);
  const bigList = emails.slice(size.bigApiJobs, size.bigApiJobs + size.bigListRows);
  const smallApi = emails.slice(size.bigApiJobs + size.bigListRows, size.bigApiJobs + size.bigListRows + size.smallApiJobs);
  const smallList = emails.slice(size.bigApiJobs + size.bigListRows + size.smallApiJobs);
  const smallGroups = (label: string) => Promise.all(Array.from({ length: size.smallAccounts }, () => newGroup(stack, label, smallApi, smallList)));
  await stack.setProviderLatency(asLatencyMap(options.providerLatenciesMs));
  await stack.setModelLatency(options.modelLatencyMs);
  const temporal = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
  try {
    // One small account's work first, unmeasured: the "alone" figures are the divisors, and a cold stack would flatter every ratio.
    log(`Fairness (${mode}): warming the stack with one small account's work…`);
    await runSmall(stack, temporal, [await newGroup(stack, 'warm-up', smallApi, smallList)]);
    log(`Fairness (${mode}): ${size.smallAccounts} small accounts alone, each ${size.smallApiJobs} API jobs and a ${size.smallListRows}-row list…`);
    const smallAlone = await runSmall(stack, temporal, await smallGroups('small-alone'));
    log(`Fairness (${mode}): the large account alone, ${size.bigApiJobs} API jobs at once and a ${size.bigListRows}-row list…`);
    const bigAlone = await runBig(stack, temporal, await newGroup(stack, 'big-alone', bigApi, bigList));
    log(`Fairness (${mode}): both together…`);
    const big = await newGroup(stack, 'big', bigApi, bigList);
    const small = await smallGroups('small');
    const bigRun = runBig(stack, temporal, big);
    // The burst is queued first; the small accounts arrive meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const smallRun = await runSmall(stack, temporal, small);
    const bigTogether = await bigRun;
    const together: FairnessRun = { ...smallRun, bigJobsPerSecond: bigTogether.jobsPerSecond, failedJobs: smallRun.failedJobs + bigTogether.failed };
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    return {
      isFairnessOn: options.isFairnessOn,
      bigAloneCalls: bigAlone.calls,
      alone: { small: { ...smallAlone, bigJobsPerSecond: NaN }, big: { smallApiP95Ms: NaN, smallListMs: NaN, bigJobsPerSecond: bigAlone.jobsPerSecond, failedJobs: bigAlone.failed } },
      together,
      smallApiP95Ratio: ratio(together.smallApiP95Ms, smallAlone.smallApiP95Ms),
      smallListRatio: ratio(together.smallListMs, smallAlone.smallListMs),
      bigThroughputRatio: ratio(together.bigJobsPerSecond, bigAlone.jobsPerSecond),
    };
  } finally {
    await temporal.connection.close();
  }
}

export function fairnessFigures(result: FairnessBenchResult): Record<string, number> {
  const figures: Record<string, number> = {};
  for (const [suffix, mode] of [['', result.on], ['_fairness_off', result.off]] as const) {
    if (!mode) continue;
    figures[`fairness.small_api_p95_ratio${suffix}`] = mode.smallApiP95Ratio;
    figures[`fairness.small_list_ratio${suffix}`] = mode.smallListRatio;
    figures[`fairness.big_throughput_ratio${suffix}`] = mode.bigThroughputRatio;
    figures[`fairness.big_alone_calls_in_flight_max.provider${suffix}`] = mode.bigAloneCalls.providerInFlight;
    figures[`fairness.big_alone_calls_in_flight_max.model${suffix}`] = mode.bigAloneCalls.modelInFlight;
    figures[`fairness.big_alone_calls_waiting_max.provider${suffix}`] = mode.bigAloneCalls.providerWaiting;
    figures[`fairness.big_alone_calls_waiting_max.model${suffix}`] = mode.bigAloneCalls.modelWaiting;
  }
  return figures;
}

export function formatFairnessResults(result: FairnessBenchResult): string {
  const { size } = result;
  const lines = [`fairness: one account ${size.bigApiJobs} API jobs at once + a ${size.bigListRows}-row list; ${size.smallAccounts} others each ${size.smallApiJobs} API jobs + a ${size.smallListRows}-row list (uncached)`];
  for (const mode of [result.on, result.off]) {
    if (!mode) continue;
    lines.push(`  ${mode.isFairnessOn ? 'fairness on ' : 'fairness off'}: small API p95 ${mode.together.smallApiP95Ms} ms vs ${mode.alone.small.smallApiP95Ms} alone = ${mode.smallApiP95Ratio}× (target ≤ 1.5); small lists ${(mode.together.smallListMs / 1000).toFixed(1)} s vs ${(mode.alone.small.smallListMs / 1000).toFixed(1)} s = ${mode.smallListRatio}× (≤ 1.5); large account ${mode.together.bigJobsPerSecond} vs ${mode.alone.big.bigJobsPerSecond} jobs/s = ${mode.bigThroughputRatio}× (≥ 0.9); ${mode.together.failedJobs} API jobs failed; the large account alone had at most ${mode.bigAloneCalls.providerInFlight} provider and ${mode.bigAloneCalls.modelInFlight} model calls in flight (${mode.bigAloneCalls.providerWaiting} and ${mode.bigAloneCalls.modelWaiting} waiting for its turn)`);
  }
  return lines.join('\n');
}
