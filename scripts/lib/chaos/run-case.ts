import { ZStatusReply } from '../../../domain/research/reply.ts';
import type { CaseContext, ChaosCase, ChaosSettings } from './case-kit.ts';
import { seconds } from './case-kit.ts';
import { checkInvariants, query, type LedgerSummary } from './invariants.ts';
import { getStatus, mapLimited, postJson, type Customer, type SandboxPerson } from './research-client.ts';
import type { ChaosStack } from './stack.ts';

export interface CaseResult {
  id: number;
  title: string;
  summary: LedgerSummary;
  problems: string[];
  notes: string[];
  durationMs: number;
}

/**
 * Runs one case on a clean slate (sandboxes reset, every service up), then the
 * checks every case shares: the ledger invariants, and the API telling the
 * same story as the database for every job.
 */
export async function runCase(
  chaosCase: ChaosCase,
  stack: ChaosStack,
  customer: Customer,
  people: SandboxPerson[],
  settings: ChaosSettings,
  print: (line: string) => void,
): Promise<CaseResult> {
  const started = Date.now();
  const problems: string[] = [];
  const notes: string[] = [];
  const log = (line: string) => print(`  [${seconds(Date.now() - started).padStart(7)}] ${line}`);
  const context: CaseContext = {
    stack,
    customer,
    settings,
    people,
    log,
    problem: (line) => {
      problems.push(line);
      log(`BROKEN: ${line}`);
    },
    note: (line) => {
      notes.push(line);
      log(`note: ${line}`);
    },
  };
  print(`\n== case ${chaosCase.id}: ${chaosCase.title} (account ${customer.accountId}, ${people.length} people)`);
  stack.takeUnexpectedExits();
  try {
    await resetSandboxes(stack, chaosCase);
    await chaosCase.run(context);
  } catch (error) {
    context.problem(`the case itself failed: ${error instanceof Error ? error.stack : String(error)}`);
  } finally {
    await resetSandboxes(stack, null).catch(() => {});
    await ensureRunning(stack, log);
  }
  for (const exit of stack.takeUnexpectedExits()) context.note(exit);

  const { summary, problems: broken } = await checkInvariants(stack.sql, customer.accountId);
  for (const line of broken) context.problem(`invariant: ${line}`);
  await compareWithApi(context);
  log(`jobs ${summary.jobs}: ${summary.completed} completed, ${summary.failed} failed, ${summary.running} running; ${summary.refunds} refunds; credits_used ${summary.creditsUsed}`);
  const result = { id: chaosCase.id, title: chaosCase.title, summary, problems, notes, durationMs: Date.now() - started };
  print(problems.length === 0 ? `== case ${chaosCase.id}: PASS` : `== case ${chaosCase.id}: FAIL (${problems.length} broken promise(s))`);
  return result;
}

async function resetSandboxes(stack: ChaosStack, chaosCase: ChaosCase | null): Promise<void> {
  await postJson(`${stack.providerUrl}/__admin/reset`, {});
  await postJson(`${stack.modelUrl}/__admin/reset`, {});
  if (chaosCase?.providerLatency) await postJson(`${stack.providerUrl}/__admin/config`, { latency: { '*': chaosCase.providerLatency } });
}

/** A case that failed half-way must not leave the next one without a service. */
async function ensureRunning(stack: ChaosStack, log: (line: string) => void): Promise<void> {
  for (const service of [stack.postgres, stack.temporalServer, stack.worker, stack.api]) {
    if (service.isRunning()) continue;
    log(`${service.name} was left stopped; starting it`);
    await service.start();
  }
}

/**
 * GET /research-status of every ended job agrees with its row: same state,
 * same error, a reply of the contract's shape. (Jobs still running are already
 * reported; reading them would let the API's backstop end them.)
 */
async function compareWithApi(context: CaseContext): Promise<void> {
  const { stack, customer } = context;
  const jobs = await query<{ id: string; status: string; error: string | null }>(
    stack.sql,
    "select id, status, error from research_job where account_id = $1 and status in ('completed', 'failed')",
    [customer.accountId],
  );
  const mismatches: string[] = [];
  await mapLimited(jobs, 8, async (job) => {
    const reply = await getStatus(stack.apiUrl, customer.key, job.id);
    const parsed = ZStatusReply.safeParse(reply.body);
    if (reply.status !== 200 || !parsed.success) mismatches.push(`${job.id}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 160)}`);
    else if (parsed.data.status !== job.status) mismatches.push(`${job.id}: API says ${parsed.data.status}, row says ${job.status}`);
    else if (parsed.data.status === 'failed' && parsed.data.error !== job.error) mismatches.push(`${job.id}: API says ${parsed.data.error}, row says ${job.error}`);
  });
  if (mismatches.length > 0) context.problem(`${mismatches.length} status replies disagree with the database: ${mismatches.slice(0, 3).join('; ')}`);
}
