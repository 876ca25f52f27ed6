// `npm run chaos`: faults against a throwaway copy of the whole system, each
// case checked against the promises of docs/api.md (job states, credits, refunds). Exits non-zero
// when any promise broke. `npm run chaos -- --help` lists the options.
import { parseArgs } from 'node:util';
import { apiKilledCase } from './lib/chaos/api-crash-case.ts';
import type { ChaosCase, ChaosSettings } from './lib/chaos/case-kit.ts';
import { aiDownCase, providerFaultsCase } from './lib/chaos/dependency-cases.ts';
import { loadWithWorkerRestartsCase, postgresRestartCase, temporalRestartCase, workerKilledCase } from './lib/chaos/process-cases.ts';
import { createCustomers, samplePeople } from './lib/chaos/research-client.ts';
import { runCase, type CaseResult } from './lib/chaos/run-case.ts';
import { startChaosStack } from './lib/chaos/stack.ts';
import { temporalOutageCase } from './lib/chaos/temporal-outage-case.ts';

const CASES: ChaosCase[] = [workerKilledCase, temporalRestartCase, postgresRestartCase, providerFaultsCase, aiDownCase, apiKilledCase, loadWithWorkerRestartsCase, temporalOutageCase];

const USAGE = `npm run chaos -- [options]
  --cases 1,3,7        which cases (default: all)
${CASES.map((c) => `                         ${c.id}. ${c.title}`).join('\n')}
  --jobs N             jobs per case 1–5; case 6 bursts 2×N POSTs (default 12)
  --load-jobs N        jobs in flight in case 7 (default 500)
  --deadline-ms MS     RESEARCH_DEADLINE_MS of the stack (default 60000)
  --sweep-ms MS        RESEARCH_SWEEP_INTERVAL_MS (default 10000)
  --down-ms MS         how long PostgreSQL / Temporal stay down (default 3000)
  --long-down-ms MS    how long Temporal stays down in case 8 (default 20000)
  --log-level LEVEL    of the worker and the API (default info; logs under the work dir)
  --keep               keep the work dir (data and logs) afterwards`;

const { values } = parseArgs({
  options: {
    cases: { type: 'string' },
    jobs: { type: 'string', default: '12' },
    'load-jobs': { type: 'string', default: '500' },
    'deadline-ms': { type: 'string', default: '60000' },
    'sweep-ms': { type: 'string', default: '10000' },
    'down-ms': { type: 'string', default: '3000' },
    'long-down-ms': { type: 'string', default: '20000' },
    'log-level': { type: 'string', default: 'info' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const positive = (name: string, raw: string) => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer, not ${raw}`);
  return value;
};
const settings: ChaosSettings = {
  jobs: positive('jobs', values.jobs),
  loadJobs: positive('load-jobs', values['load-jobs']),
  deadlineMs: positive('deadline-ms', values['deadline-ms']),
  backstopGraceMs: 5_000,
  sweepIntervalMs: positive('sweep-ms', values['sweep-ms']),
  downMs: positive('down-ms', values['down-ms']),
  longDownMs: positive('long-down-ms', values['long-down-ms']),
};
const selected = values.cases
  ? values.cases.split(',').map((id) => {
      const found = CASES.find((c) => c.id === Number(id.trim()));
      if (!found) throw new Error(`no case ${id}; the cases are ${CASES.map((c) => c.id).join(', ')}`);
      return found;
    })
  : CASES;

const print = (line: string) => process.stdout.write(`${line}\n`);
const runStarted = Date.now();
print(`chaos: cases ${selected.map((c) => c.id).join(', ')}; ${settings.jobs} jobs per case, ${settings.loadJobs} in case 7; deadline ${settings.deadlineMs} ms, sweep every ${settings.sweepIntervalMs} ms`);

const stack = await startChaosStack({
  deadlineMs: settings.deadlineMs,
  backstopGraceMs: settings.backstopGraceMs,
  sweepIntervalMs: settings.sweepIntervalMs,
  providerTimeoutMs: 3_000,
  logLevel: values['log-level'],
  keepData: values.keep,
  log: (line) => print(`[stack] ${line}`),
});
print(`[stack] ready in ${((Date.now() - runStarted) / 1000).toFixed(1)} s; logs in ${stack.workDir}/logs`);

const results: CaseResult[] = [];
let failedCount: number | null = null;
try {
  const needs = selected.map((c) => c.peopleNeeded(settings));
  const people = await samplePeople(stack.providerUrl, needs.reduce((sum, need) => sum + need, 0));
  const customers = await createCustomers(stack.databaseUrl, selected.length, settings.loadJobs + settings.jobs * 6 + 100);
  let offset = 0;
  for (const [index, chaosCase] of selected.entries()) {
    const share = people.slice(offset, offset + needs[index]);
    offset += needs[index];
    results.push(await runCase(chaosCase, stack, customers[index], share, settings, print));
  }
  failedCount = report(results);
} finally {
  // A failed run keeps its data and logs for the post-mortem.
  await stack.stop(values.keep || failedCount !== 0);
}
print(`\nchaos: ${results.length - failedCount!} passed, ${failedCount} failed (${((Date.now() - runStarted) / 1000).toFixed(0)} s)`);
process.exit(failedCount === 0 ? 0 : 1);

/** Prints the table, the notes and every broken promise; returns how many cases failed. */
function report(rows: CaseResult[]): number {
  const failed = rows.filter((row) => row.problems.length > 0);
  print('\n case | jobs | completed | failed | refunds | time    | verdict');
  print('------|------|-----------|--------|---------|---------|--------');
  for (const row of rows) {
    const s = row.summary;
    const cells = [String(row.id).padStart(5), String(s.jobs).padStart(4), String(s.completed).padStart(9), String(s.failed).padStart(6), String(s.refunds).padStart(7), `${(row.durationMs / 1000).toFixed(0)} s`.padStart(7)];
    print(`${cells.join(' | ')} | ${row.problems.length === 0 ? 'pass' : 'FAIL'}${row.notes.length ? ` (${row.notes.length} note${row.notes.length > 1 ? 's' : ''})` : ''}`);
  }
  for (const row of rows) {
    for (const note of row.notes) print(`note, case ${row.id}: ${note}`);
  }
  for (const row of failed) {
    print(`\nCASE ${row.id} FAILED: ${row.title}`);
    for (const problem of row.problems) print(`  ✗ ${problem}`);
  }
  return failed.length;
}
