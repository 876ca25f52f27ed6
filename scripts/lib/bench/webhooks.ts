import { ProspectEnrichment } from '../../../clients/typescript/src/index.ts';
import { hashApiKey } from '../../../services/accounts/api-keys.ts';
import { createEndpoint } from '../../../services/webhooks/webhooks.ts';
import { loadWebhookConfig } from '../../../integrations/webhooks/config.ts';
import type { ReceiverProcess } from './receiver-process.ts';
import type { BenchStack } from './bench-stack.ts';
import { runClosedLoop, runJob, summarise, type Percentiles } from './research-client.ts';

export interface WebhookLatencyLevel {
  inFlight: number;
  jobs: number;
  /** The job row's completed_at → the receiver's arrival (one clock: everything runs on this machine). */
  latencyMs: Percentiles;
  /** Where it went: completed_at → delivery workflow started (the dispatcher) → first attempt sent (Temporal and the worker). */
  phasesMs: { toWorkflowStart: Percentiles; toFirstAttempt: Percentiles };
  missing: number;
}

export interface WebhookBenchResult {
  levels: WebhookLatencyLevel[];
  /** One cache-hit job end to end, the typed client's research() against the raw fetch loop of the other parts. */
  cacheHitMs: { typedClient: Percentiles; rawFetch: Percentiles; jobs: number };
}

/**
 * Webhook latency (completed_at → arrival at the receiver stand-in) at each
 * level of jobs in flight, on cache-hit jobs; and the typed client's cost.
 */
export async function measureWebhooks(
  stack: BenchStack,
  receiver: ReceiverProcess,
  options: { email: string; levels: number[]; jobsAt: (inFlight: number) => number; clientJobs: number; log: (line: string) => void },
): Promise<WebhookBenchResult> {
  const apiKey = await stack.newApiKey('webhooks');
  const em = stack.orm.em.fork();
  const [{ account_id: accountId }]: { account_id: number }[] = await em.execute('select account_id from api_key where key_hash = ?', [hashApiKey(apiKey)]);
  // The worker's key for secrets is the development one here (no WEBHOOK_SECRET_KEY in the bench environment).
  const hook = '/hooks/bench';
  await createEndpoint(em, loadWebhookConfig({}).secretKey, { accountId, url: `${receiver.url}${hook}`, events: ['research.completed', 'research.failed'] }, new Date());
  const warm = await runJob(stack.apiUrl, apiKey, options.email);
  if (warm.status !== 'completed') throw new Error(`the job filling the cache ended ${warm.status}`);

  const levels: WebhookLatencyLevel[] = [];
  for (const inFlight of options.levels) {
    const jobs = options.jobsAt(inFlight);
    options.log(`Webhooks: ${jobs} cache-hit jobs, ${inFlight} in flight…`);
    const { results } = await runClosedLoop(jobs, inFlight, () => runJob(stack.apiUrl, apiKey, options.email));
    const ids = results.map((sample) => sample.researchId);
    // Deliveries still under way when the last job ends: a short grace before counting what is missing.
    const deadline = Date.now() + 10_000;
    const arrivals = async () => new Map((await receiver.received(hook)).map((each) => [(JSON.parse(each.body) as { data: { research_id: string } }).data.research_id, Date.parse(each.at)]));
    let arrived = await arrivals();
    while (ids.some((id) => !arrived.has(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      arrived = await arrivals();
    }
    const rows: { id: string; completed_at: Date }[] = await em.execute('select id, completed_at from research_job where id in (?)', [ids]);
    const latencies = rows.filter((row) => arrived.has(row.id)).map((row) => arrived.get(row.id)! - new Date(row.completed_at).getTime());
    const phases: { to_start: number; to_attempt: number }[] = await em.execute(
      `select extract(epoch from d.workflow_started_at - j.completed_at) * 1000 as to_start,
              extract(epoch from (select min(a.attempted_at) from webhook_attempt a where a.delivery_id = d.id) - j.completed_at) * 1000 as to_attempt
         from webhook_delivery d join research_job j on j.id = d.research_id where d.research_id in (?)`,
      [ids],
    );
    levels.push({
      inFlight,
      jobs,
      latencyMs: summarise(latencies),
      phasesMs: { toWorkflowStart: summarise(phases.map((row) => Number(row.to_start))), toFirstAttempt: summarise(phases.map((row) => Number(row.to_attempt))) },
      missing: ids.length - latencies.length,
    });
  }

  options.log(`Typed client: ${options.clientJobs} cache-hit jobs, each way…`);
  const client = new ProspectEnrichment({ apiKey, baseUrl: stack.apiUrl, longPollSeconds: 10 });
  const typed: number[] = [];
  const raw: number[] = [];
  for (let index = 0; index < options.clientJobs; index += 1) {
    const started = performance.now();
    await client.research({ email: options.email });
    typed.push(performance.now() - started);
    raw.push((await runJob(stack.apiUrl, apiKey, options.email)).totalMs);
  }
  return { levels, cacheHitMs: { typedClient: summarise(typed), rawFetch: summarise(raw), jobs: options.clientJobs } };
}

export function formatWebhookResults(result: WebhookBenchResult): string {
  const lines = result.levels.map(
    (level) => `  ${String(level.inFlight).padStart(3)} in flight, ${level.jobs} jobs: p50 ${level.latencyMs.p50} ms, p95 ${level.latencyMs.p95} ms (target p95 ≤ 250 ms); workflow started p50 ${level.phasesMs.toWorkflowStart.p50} / p95 ${level.phasesMs.toWorkflowStart.p95} ms, attempt sent p50 ${level.phasesMs.toFirstAttempt.p50} / p95 ${level.phasesMs.toFirstAttempt.p95} ms${level.missing ? `, ${level.missing} not arrived` : ''}`,
  );
  const { typedClient, rawFetch, jobs } = result.cacheHitMs;
  return `webhook latency, completed_at → receiver:\n${lines.join('\n')}\ncache hit end to end (${jobs} jobs each): typed client p50 ${typedClient.p50} ms / p95 ${typedClient.p95} ms; raw fetch loop p50 ${rawFetch.p50} ms / p95 ${rawFetch.p95} ms\n`;
}
