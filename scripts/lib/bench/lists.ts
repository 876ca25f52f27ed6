import { Client, Connection } from '@temporalio/client';
import { Account } from '../../../db/entities/index.ts';
import { LIST_ITEMS_IN_FLIGHT } from '../../../domain/research/fanout.ts';
import { RESEARCH_DEADLINE_MS, RESEARCH_TASK_QUEUE } from '../../../domain/research/contract.ts';
import { hashApiKey } from '../../../services/accounts/api-keys.ts';
import { startListRunWorkflow } from '../../../services/lists/runs.ts';
import { createListDraft, startList } from '../../../services/lists/lists.ts';
import type { BenchStack } from './bench-stack.ts';
import { asLatencyMap, candidateEmails, criticalPathMs, recordProspectCalls, type EndpointLatencies, type ProspectCalls } from './critical-path.ts';
import { runClosedLoop, runJob, summarise, type Percentiles } from './research-client.ts';

// The list figures: a list of uncached prospects against its lower bound
// (rows ÷ rows in flight × one job's critical path), and the API's own job
// latency while the list runs, against the same without it.

export interface ListBenchResult {
  rows: number;
  inFlight: number;
  wallMs: number;
  /** ceil(rows ÷ in flight) × the median critical path of the list's prospects. */
  lowerBoundMs: number;
  ratio: number;
  /** API jobs (uncached, their own prospects): POST → completed as the client sees it. */
  apiAlone: Percentiles;
  apiBesideList: Percentiles;
  apiJobs: number;
  apiInFlight: number;
  failedRows: number;
}

async function recordCalls(stack: BenchStack, emails: string[], needed: number): Promise<ProspectCalls[]> {
  const prospects: ProspectCalls[] = [];
  for (let index = 0; index < emails.length && prospects.length < needed; index += 8) {
    const recorded = await Promise.all(emails.slice(index, index + 8).map((email) => recordProspectCalls(stack.providerUrl, email)));
    for (const calls of recorded) if (calls && prospects.length < needed) prospects.push(calls);
  }
  if (prospects.length < needed) throw new Error(`only ${prospects.length} of ${needed} prospects have every part`);
  return prospects;
}

export async function measureLists(
  stack: BenchStack,
  options: { rows: number; apiJobs: number; apiInFlight: number; providerLatenciesMs: EndpointLatencies; modelLatencyMs: number; log: (line: string) => void },
): Promise<ListBenchResult> {
  const { log } = options;
  const needed = options.rows + 2 * options.apiJobs;
  log(`Lists: recording the provider calls of ${needed} prospects (sandbox without latency)…`);
  await stack.setProviderLatency({});
  // Every part has its own accounts, hence its own cache: the overhead part's prospects are uncached here too.
  const candidates = candidateEmails(needed * 2, process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined);
  const prospects = await recordCalls(stack, candidates, needed);
  const listProspects = prospects.slice(0, options.rows);
  const aloneProspects = prospects.slice(options.rows, options.rows + options.apiJobs);
  const besideProspects = prospects.slice(options.rows + options.apiJobs);
  await stack.setProviderLatency(asLatencyMap(options.providerLatenciesMs));
  await stack.setModelLatency(options.modelLatencyMs);

  const apiKey = await stack.newApiKey('lists-api');
  log(`Lists: ${options.apiJobs} API jobs alone, ${options.apiInFlight} in flight…`);
  const alone = await runClosedLoop(options.apiJobs, options.apiInFlight, (index) => runJob(stack.apiUrl, apiKey, aloneProspects[index]!.email));

  const listKey = await stack.newApiKey('lists');
  const em = stack.orm.em.fork();
  const [{ account_id: accountId }]: { account_id: number }[] = await em.execute('select account_id from api_key where key_hash = ?', [hashApiKey(listKey)]);
  const account = await em.findOneOrFail(Account, accountId);
  const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: listProspects.map((calls) => calls.email).join('\n'), name: 'bench' }, new Date());
  const temporal = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
  try {
    await startList(stack.orm.em.fork(), accountId, draft.id, {}, new Date());
    await startListRunWorkflow({ temporal, taskQueue: RESEARCH_TASK_QUEUE, deadlineMs: RESEARCH_DEADLINE_MS }, stack.orm.em.fork(), draft.id, new Date());
    log(`Lists: ${options.rows} rows started, ${LIST_ITEMS_IN_FLIGHT} in flight; ${options.apiJobs} API jobs beside it…`);
    const beside = await runClosedLoop(options.apiJobs, options.apiInFlight, (index) => runJob(stack.apiUrl, apiKey, besideProspects[index]!.email));
    let list: { status: string; wall_ms: number | null };
    for (;;) {
      [list] = await stack.orm.em.fork().getConnection().execute(
        `select status, extract(epoch from finished_at - started_at) * 1000 as wall_ms from prospect_list where id = ?`,
        [draft.id],
      );
      if (list!.wall_ms !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const [{ failed }] = await stack.orm.em.fork().getConnection().execute(
      `select count(*)::int as failed from prospect_list_row r join research_job j on j.id = r.research_id where r.list_id = ? and j.status = 'failed'`,
      [draft.id],
    );
    const paths = listProspects.map((calls) => criticalPathMs(calls, options.providerLatenciesMs, options.modelLatencyMs)).sort((a, b) => a - b);
    const medianPath = paths[Math.floor(paths.length / 2)]!;
    const lowerBoundMs = Math.ceil(options.rows / LIST_ITEMS_IN_FLIGHT) * medianPath;
    const wallMs = Number(list!.wall_ms);
    return {
      rows: options.rows,
      inFlight: LIST_ITEMS_IN_FLIGHT,
      wallMs: Math.round(wallMs),
      lowerBoundMs,
      ratio: Math.round((wallMs / lowerBoundMs) * 100) / 100,
      apiAlone: summarise(alone.results.map((sample) => sample.totalMs), 0),
      apiBesideList: summarise(beside.results.map((sample) => sample.totalMs), 0),
      apiJobs: options.apiJobs,
      apiInFlight: options.apiInFlight,
      failedRows: failed,
    };
  } finally {
    await temporal.connection.close();
  }
}

export function formatListResults(result: ListBenchResult): string {
  return [
    `list run: ${result.rows} uncached rows, ${result.inFlight} in flight: ${(result.wallMs / 1000).toFixed(1)} s against a lower bound of ${(result.lowerBoundMs / 1000).toFixed(1)} s (rows ÷ in flight × one job's critical path) = ${result.ratio}×; ${result.failedRows} rows failed`,
    `API jobs (${result.apiJobs}, ${result.apiInFlight} in flight, uncached) alone: p50 ${result.apiAlone.p50} ms, p95 ${result.apiAlone.p95} ms; beside the list: p50 ${result.apiBesideList.p50} ms, p95 ${result.apiBesideList.p95} ms`,
  ].join('\n');
}
