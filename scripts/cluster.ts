// `npm run cluster`: the production shape on this machine, against one
// Temporal and one PostgreSQL: two APIs behind a small load balancer, two
// research workers, a CRM, a webhooks and a housekeeping worker, each its own
// process. Load: API jobs, a CRM run, a list, webhooks to the receiver
// stand-in. During it every process is restarted with SIGTERM, one at a time
// (a rolling update), then one research worker and one API are SIGKILLed.
// Prints a table and exits non-zero on any loss (docs/operations.md#the-cluster-run).
//
//   --jobs N            API jobs (default 500)
//   --list-rows N       rows of the list (default 200)
//   --crm-contacts N    contacts of the CRM run (default 50)
//   --in-flight N       API jobs in flight (default 12)
//   --json FILE         every figure, flat, by stable dotted names
//   --keep              keep the work directory (logs, data)
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import pg from 'pg';
import { initOrm } from '../db/orm.ts';
import { RESEARCH_DEADLINE_MS, RESEARCH_TASK_QUEUE } from '../domain/research/contract.ts';
import { Account } from '../db/entities/account.ts';
import { createLogger } from '../lib/logger.ts';
import { startWebhookReceiver } from '../sandbox/webhook-receiver/server.ts';
import { hashApiKey } from '../services/accounts/api-keys.ts';
import { createCrm } from '../services/crm/crm.ts';
import { startListRunWorkflow } from '../services/lists/runs.ts';
import { createListDraft, startList } from '../services/lists/lists.ts';
import { createEndpoint } from '../services/webhooks/webhooks.ts';
import { loadWebhookConfig } from '../integrations/webhooks/config.ts';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../worker/create-worker.ts';
import { asLatencyMap, candidateEmails, DEFAULT_MODEL_LATENCY_MS, DEFAULT_PROVIDER_LATENCIES_MS } from './lib/bench/critical-path.ts';
import { connectBenchPortal, startCrmBenchStandIn } from './lib/bench/crm.ts';
import { figuresJson } from './lib/bench/figures.ts';
import { summarise } from './lib/bench/research-client.ts';
import { checkInvariants } from './lib/chaos/invariants.ts';
import { createCustomers, mapLimited, postJson, sleep, submit } from './lib/chaos/research-client.ts';
import { clusterProcess, type ClusterProcess } from './lib/cluster/cluster-processes.ts';
import { startLoadBalancer } from './lib/cluster/load-balancer.ts';
import { freePort } from './lib/free-port.ts';
import { startProcess } from './lib/child-process.ts';
import { ROOT, startLocalServices } from './lib/local-services.ts';

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '500' },
    'list-rows': { type: 'string', default: '200' },
    'crm-contacts': { type: 'string', default: '50' },
    'in-flight': { type: 'string', default: '12' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const JOBS = Number(flags.jobs);
const LIST_ROWS = Number(flags['list-rows']);
const CRM_CONTACTS = Number(flags['crm-contacts']);
const IN_FLIGHT = Number(flags['in-flight']);
const ALONE_JOBS = 24;
const CRM_PORTAL_ID = 4_000_026;
const log = (line: string) => process.stderr.write(`[cluster] ${line}\n`);
// bundleWorkflowCode's logger: warnings and errors only.
const quietLogger = {
  trace: () => {}, debug: () => {}, info: () => {}, log: () => {},
  warn: (message: string) => log(`bundler: ${message}`), error: (message: string) => log(`bundler: ${message}`),
};

// Variables that would point the run at shared or real systems.
const OUTSIDE_SYSTEMS = /^(DATABASE_URL|TEMPORAL_ADDRESS|TEMPORAL_TASK_QUEUE|OPENAI_.*|AI_SANDBOX_URL|PROVIDER_SANDBOX_URL|PDL_.*|APOLLO_.*|SOCIAL_.*|NEWS_.*|PORT|RESEARCH_.*|WORKER_.*)$/;

const workDir = mkdtempSync(join(tmpdir(), 'prospect-cluster-'));
chmodSync(workDir, 0o755); // the PostgreSQL server user must reach its data directory inside
const logDir = join(workDir, 'logs');
mkdirSync(logDir, { recursive: true });
const receiver = await startWebhookReceiver({ port: 0 });
process.env.ALLOW_PRIVATE_HOSTS = '127.0.0.1';
const hubspot = await startCrmBenchStandIn();
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUTSIDE_SYSTEMS.test(name)));
const services = await startLocalServices({
  dataDir: workDir,
  ports: { postgres: await freePort(), temporal: await freePort(), temporalUi: null, providerWorld: await freePort(), modelSandbox: await freePort() },
  env,
  log,
  temporalSqlitePragmas: ['journal_mode=wal', 'synchronous=off'],
});
const processes: ClusterProcess[] = [];
let exitCode = 1;
try {
  // Migrations: a command of their own that exits, before any role starts (as a Helm hook or a compose service runs it).
  const migrate = startProcess('migrate', process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'scripts/migrate.ts')], {
    env: { ...env, ...services.env }, logFile: join(logDir, 'migrate.log'),
  });
  const migrateCode = await new Promise<number | null>((resolve) => migrate.child.once('exit', (code) => resolve(code)));
  if (migrateCode !== 0) throw new Error(`migrations exited with ${migrateCode}`);

  // One workflow bundle for every worker, as the image carries it.
  const bundlePath = join(workDir, 'workflow-bundle.js');
  writeFileSync(bundlePath, (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: quietLogger })).code);
  const appEnv: NodeJS.ProcessEnv = {
    ...env, ...services.env, LOG_LEVEL: 'warn', WORKFLOW_BUNDLE_PATH: bundlePath,
    // The load balancer reads readiness every 250 ms: a draining API is out of its rotation before it stops accepting.
    SHUTDOWN_READINESS_DELAY_MS: '750', SHUTDOWN_GRACE_MS: '20000',
  };
  const specs = [
    { name: 'api-1', entry: 'api/main.ts', args: [] },
    { name: 'api-2', entry: 'api/main.ts', args: [] },
    { name: 'research-1', entry: 'worker/main.ts', args: ['research'] },
    { name: 'research-2', entry: 'worker/main.ts', args: ['research'] },
    { name: 'crm-1', entry: 'worker/main.ts', args: ['crm'] },
    { name: 'webhooks-1', entry: 'worker/main.ts', args: ['webhooks'] },
    { name: 'housekeeping-1', entry: 'worker/main.ts', args: ['housekeeping'] },
  ] as const;
  for (const spec of specs) processes.push(await clusterProcess({ ...spec, args: [...spec.args] }, appEnv, logDir));
  log(`Starting ${processes.map((each) => each.name).join(', ')}…`);
  for (const each of processes) await each.start();
  const balancer = await startLoadBalancer(processes.filter((each) => each.name.startsWith('api-')).map((each) => each.url));
  log(`Load balancer ${balancer.url} → ${processes.filter((each) => each.name.startsWith('api-')).map((each) => each.url).join(', ')}`);

  const providerUrl = services.env.PROVIDER_SANDBOX_URL!;
  const modelOrigin = services.env.AI_SANDBOX_URL!.replace(/\/v1$/, '');
  await postJson(`${providerUrl}/__admin/config`, { latency: asLatencyMap(DEFAULT_PROVIDER_LATENCIES_MS), replace: true });
  await postJson(`${modelOrigin}/__admin/config`, { latencyMs: DEFAULT_MODEL_LATENCY_MS });

  const orm = await initOrm(services.env.DATABASE_URL!, { migrate: false, poolMax: 4 });
  const sql = new pg.Pool({ connectionString: services.env.DATABASE_URL, max: 2 });
  const temporal = new Client({ connection: await Connection.connect({ address: services.env.TEMPORAL_ADDRESS! }) });
  const people = candidateEmails(ALONE_JOBS + JOBS + LIST_ROWS + CRM_CONTACTS);
  const [customer] = await createCustomers(services.env.DATABASE_URL!, 1, 10_000_000);
  const webhooks = loadWebhookConfig(process.env);
  await createEndpoint(orm.em.fork(), webhooks.secretKey, { accountId: customer!.accountId, url: `${receiver.url}/hooks/cluster`, events: ['research.completed', 'research.failed'] }, new Date());

  /** One API job through the balancer: retried on 5xx or no answer with the same Idempotency-Key, as a client should. */
  const submitted = new Map<string, string>();
  let retriedPosts = 0;
  async function postJob(email: string): Promise<string | null> {
    const idempotencyKey = randomUUID();
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const reply = await submit(balancer.url, customer!.key, email, idempotencyKey);
      if (reply.status === 202 && reply.researchId) {
        submitted.set(reply.researchId, email);
        return reply.researchId;
      }
      if (reply.status !== 0 && reply.status < 500) throw new Error(`POST /research answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      retriedPosts += 1;
      await sleep(250 * (attempt + 1));
    }
    return null;
  }
  /** Its submitted → completed time from the row, once it has ended. */
  async function jobTimes(ids: string[]): Promise<number[]> {
    const rows: Array<{ ms: string | null }> = (await sql.query(`select extract(epoch from completed_at - submitted_at) * 1000 as ms from research_job where id = any($1) and status = 'completed'`, [ids])).rows;
    return rows.map((row) => Number(row.ms));
  }
  async function waitForEnd(ids: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await sql.query(`select count(*)::int as n from research_job where id = any($1) and status in ('queued', 'processing')`, [ids]);
      if (rows[0].n === 0) return;
      await sleep(500);
    }
  }

  log(`${ALONE_JOBS} API jobs alone (${Math.min(IN_FLIGHT, 6)} in flight), for the p95 to compare with…`);
  const aloneIds = (await mapLimited(people.slice(0, ALONE_JOBS), Math.min(IN_FLIGHT, 6), (email) => postJob(email))).filter((id): id is string => id !== null);
  await waitForEnd(aloneIds, 120_000);
  const alone = summarise(await jobTimes(aloneIds), 0);

  // The list and the CRM run, started beside the API jobs.
  const listEmails = people.slice(ALONE_JOBS + JOBS, ALONE_JOBS + JOBS + LIST_ROWS);
  const crmEmails = people.slice(ALONE_JOBS + JOBS + LIST_ROWS);
  const listAccount = (await createCustomers(services.env.DATABASE_URL!, 1, 10_000_000))[0]!;
  const account = await orm.em.fork().findOneOrFail(Account, listAccount.accountId);
  const draft = await createListDraft(orm.em.fork(), account, { pasted: listEmails.join('\n'), name: 'cluster' }, new Date());
  await startList(orm.em.fork(), listAccount.accountId, draft.id, {}, new Date());
  await startListRunWorkflow({ temporal, taskQueue: RESEARCH_TASK_QUEUE, deadlineMs: RESEARCH_DEADLINE_MS }, orm.em.fork(), draft.id, new Date());
  const portal = await connectBenchPortal(orm, hubspot, { portalId: CRM_PORTAL_ID, emails: crmEmails, ownerEmail: 'cluster-crm@example.com', researchLimit: CRM_CONTACTS });
  const crm = createCrm({ orm, temporal, env: process.env, publicUrl: balancer.url, clock: () => new Date(), researchTaskQueue: RESEARCH_TASK_QUEUE, logger: createLogger('cluster', 'warn') })!;
  const crmRunId = await crm.runNow(portal.accountId, portal.productId);
  log(`List of ${LIST_ROWS} rows and CRM run of ${CRM_CONTACTS} contacts started; ${JOBS} API jobs, ${IN_FLIGHT} in flight…`);

  // The faults, while the load runs: a rolling restart of every process, then two crashes.
  const faults: Array<{ process: string; signal: string; exit: string; drainMs: number }> = [];
  const chaos = (async () => {
    await sleep(5_000);
    for (const each of processes) {
      const stopped = await each.stop('SIGTERM');
      faults.push({ process: each.name, signal: 'SIGTERM', exit: stopped.signal ?? `code ${stopped.exitCode}`, drainMs: stopped.ms });
      log(`${each.name}: SIGTERM → exited (${stopped.signal ?? `code ${stopped.exitCode}`}) after ${stopped.ms} ms; starting it again`);
      await each.start();
    }
    for (const name of ['research-1', 'api-2']) {
      const each = processes.find((candidate) => candidate.name === name)!;
      const stopped = await each.stop('SIGKILL');
      faults.push({ process: name, signal: 'SIGKILL', exit: stopped.signal ?? `code ${stopped.exitCode}`, drainMs: stopped.ms });
      log(`${name}: SIGKILL; starting it again in 2 s`);
      await sleep(2_000);
      await each.start();
    }
  })();
  const runIds = (await mapLimited(people.slice(ALONE_JOBS, ALONE_JOBS + JOBS), IN_FLIGHT, (email) => postJob(email)));
  await chaos;
  const accepted = runIds.filter((id): id is string => id !== null);
  const unanswered = runIds.length - accepted.length;
  log('Waiting for every job, the list and the CRM run to end…');
  await waitForEnd(accepted, RESEARCH_DEADLINE_MS * 2);
  const crmResult = await temporal.workflow.getHandle(crmRunId).result();
  for (let waited = 0; waited < 600_000; waited += 1_000) {
    const { rows } = await sql.query('select finished_at from prospect_list where id = $1', [draft.id]);
    if (rows[0]?.finished_at) break;
    await sleep(1_000);
  }
  const during = summarise(await jobTimes(accepted), 0);

  // The checks.
  const problems: string[] = [];
  const { rows: states } = await sql.query(`select status, count(*)::int as n from research_job where id = any($1) group by status`, [accepted]);
  const byStatus = Object.fromEntries(states.map((row) => [row.status, row.n])) as Record<string, number>;
  const completed = byStatus.completed ?? 0;
  const failed = byStatus.failed ?? 0;
  const lost = accepted.length - completed - failed + unanswered;
  if (completed !== accepted.length) problems.push(`${accepted.length - completed} of ${accepted.length} accepted API jobs did not complete (${JSON.stringify(byStatus)})`);
  if (unanswered > 0) problems.push(`${unanswered} POSTs got no 202 after 20 tries`);
  for (const [who, accountId] of [['API', customer!.accountId], ['list', listAccount.accountId], ['CRM', portal.accountId]] as const) {
    const report = await checkInvariants(sql, accountId);
    for (const problem of report.problems) problems.push(`${who} ledger: ${problem}`);
  }
  const { rows: [list] } = await sql.query(
    `select l.status, count(r.*)::int as rows, count(distinct r.research_id)::int as jobs, count(*) filter (where j.status = 'completed')::int as completed
       from prospect_list l join prospect_list_row r on r.list_id = l.id left join research_job j on j.id = r.research_id where l.id = $1 group by l.status`,
    [draft.id],
  );
  if (list.status !== 'completed' || list.completed !== LIST_ROWS) problems.push(`list: ${list.status}, ${list.completed} of ${LIST_ROWS} rows completed`);
  const { rows: crmJobs } = await sql.query(`select source_item, count(*)::int as n from research_job where account_id = $1 group by source_item`, [portal.accountId]);
  const crmTwice = crmJobs.filter((row) => row.n !== 1);
  if (crmJobs.length !== CRM_CONTACTS || crmTwice.length > 0) problems.push(`CRM: ${crmJobs.length} contacts researched (want ${CRM_CONTACTS}), ${crmTwice.length} more than once`);
  const state = (await (await fetch(`${hubspot.url}/__admin/state`)).json()) as { portals: Array<{ portalId: number; notes?: Array<{ contactIds: string[] }> }> };
  const notes = state.portals.find((each) => each.portalId === CRM_PORTAL_ID)?.notes ?? [];
  const notesPerContact = new Map<string, number>();
  for (const note of notes) for (const contactId of note.contactIds) notesPerContact.set(contactId, (notesPerContact.get(contactId) ?? 0) + 1);
  if (notesPerContact.size !== CRM_CONTACTS) problems.push(`CRM: ${notesPerContact.size} contacts got a note (want ${CRM_CONTACTS})`);
  const notedTwice = [...notesPerContact.values()].filter((count) => count > 1).length;
  if (notedTwice > 0) problems.push(`CRM: ${notedTwice} contacts got more than one note`);

  const deliveries = receiver.received('/hooks/cluster');
  const idsByJob = new Map<string, Set<string>>();
  for (const each of deliveries) {
    const researchId = (JSON.parse(each.body) as { data: { research_id: string } }).data.research_id;
    idsByJob.set(researchId, (idsByJob.get(researchId) ?? new Set()).add(each.webhookId ?? ''));
  }
  const delivered = accepted.filter((id) => idsByJob.has(id)).length;
  const undelivered = accepted.length - delivered;
  const manyIds = [...idsByJob.values()].filter((ids) => ids.size > 1).length;
  const duplicates = deliveries.length - idsByJob.size;
  if (undelivered > 0) problems.push(`${undelivered} jobs' webhook events never arrived`);
  if (manyIds > 0) problems.push(`${manyIds} events arrived under more than one webhook-id`);

  const figures = {
    'cluster.accepted': accepted.length,
    'cluster.completed': completed,
    'cluster.failed': failed,
    'cluster.lost': lost,
    'cluster.posts_retried': retriedPosts,
    'cluster.balancer_502': balancer.cutShort(),
    'cluster.api_job_ms.alone.p50': alone.p50,
    'cluster.api_job_ms.alone.p95': alone.p95,
    'cluster.api_job_ms.during.p50': during.p50,
    'cluster.api_job_ms.during.p95': during.p95,
    'cluster.list.rows_completed': list.completed,
    'cluster.crm.contacts_researched': crmJobs.length,
    'cluster.crm.contacts_noted_twice': notedTwice,
    'cluster.webhooks.delivered_events': delivered,
    'cluster.webhooks.undelivered_events': undelivered,
    'cluster.webhooks.duplicate_arrivals': duplicates,
    'cluster.faults': faults.length,
    'machine.load_average_1m': Math.round(loadavg()[0]! * 100) / 100,
  };
  const rows = [
    ['API jobs accepted', accepted.length], ['completed', completed], ['failed', failed], ['lost', lost],
    ['POSTs retried (502/503 from the balancer, no answer)', retriedPosts],
    ['API job p50 / p95 alone', `${alone.p50} / ${alone.p95} ms`], ['API job p50 / p95 during the run', `${during.p50} / ${during.p95} ms`],
    ['list rows completed', `${list.completed} of ${LIST_ROWS}`], ['CRM run', `${(crmResult as { status: string }).status}, ${crmJobs.length} contacts, each once; ${notedTwice} noted twice`],
    ['webhook events delivered', `${delivered} of ${accepted.length} jobs, one webhook-id each: ${manyIds === 0 ? 'yes' : 'no'}; ${duplicates} repeated arrivals`],
    ['faults', faults.map((fault) => `${fault.process} ${fault.signal} (${fault.exit}${fault.signal === 'SIGTERM' ? `, ${fault.drainMs} ms` : ''})`).join('; ')],
  ];
  process.stdout.write(`| figure | value |\n|---|---|\n${rows.map(([name, value]) => `| ${name} | ${value} |`).join('\n')}\n`);
  process.stdout.write(problems.length ? `LOSS:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n` : 'Nothing lost: every accepted job completed, each contact and row once, every ledger balanced, every event delivered under one id.\n');
  if (flags.json) writeFileSync(flags.json, figuresJson(figures));
  await temporal.connection.close();
  await sql.end();
  await orm.close();
  await balancer.close();
  exitCode = problems.length ? 1 : 0;
} catch (error) {
  log(`failed: ${(error as Error).stack ?? error}`);
  log(`logs are in ${logDir}`);
} finally {
  for (const each of processes.reverse()) await each.stop('SIGTERM');
  await services.stop();
  await receiver.close();
  await hubspot.close();
  if (!flags.keep && exitCode === 0) rmSync(workDir, { recursive: true, force: true });
  else log(`work directory kept: ${workDir}`);
}
process.exit(exitCode);
