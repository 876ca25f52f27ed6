import { setTimeout as delay } from 'node:timers/promises';
import type { MailSandbox } from '../../../sandbox/mail/mail-sandbox.ts';
import { ensureChromium, launchChromium } from '../chromium.ts';
import { DashboardClient } from '../dashboard-client.ts';
import type { BenchStack } from './bench-stack.ts';
import { summarise } from './research-client.ts';

export interface DashboardResult {
  /** JavaScript the sign-in page loads on a first visit, as sent (compressed) and as run. */
  signInScript: { compressedKiB: number; decodedKiB: number; files: number };
  jobsSeeded: number;
  calls: Array<{ call: string; requests: number; p50Ms: number; p95Ms: number; maxMs: number }>;
}

const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };

/**
 * The dashboard's two figures: the sign-in page's JavaScript, read
 * from what Chromium received, and the latency of every JSON call on an account
 * with `jobs` research jobs, one request at a time as a person's browser makes them.
 */
export async function measureDashboard(
  stack: BenchStack,
  mail: MailSandbox,
  options: { jobs: number; requests: number; log: (line: string) => void },
): Promise<DashboardResult> {
  const signInScript = await measureSignInScript(stack.apiUrl, options.log);

  const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, `bench-dashboard-${Date.now()}@example.com`);
  const { key, keyId } = (await client.post('/app/api/keys', PRODUCT)).body as { key: string; keyId: number };
  const accountId = (await client.get('/app/api/me')).body.accountId as number;
  options.log(`Dashboard: seeding ${options.jobs} jobs from one real completed reply…`);
  const template = await oneCompletedJob(stack, key);
  await seedJobs(stack, accountId, keyId, template, options.jobs);
  const someJob = (await client.get('/app/api/jobs?page=3')).body.jobs[0].id as string;

  const calls = ['/app/api/me', '/app/api/keys', '/app/api/jobs', '/app/api/jobs?page=300', '/app/api/jobs?status=failed', `/app/api/jobs?keyId=${keyId}&status=completed`, `/app/api/jobs/${someJob}`, '/app/api/usage', '/app/api/billing'];
  const results: DashboardResult['calls'] = [];
  for (const call of calls) {
    for (let warmup = 0; warmup < 10; warmup++) await client.get(call);
    const times: number[] = [];
    for (let request = 0; request < options.requests; request++) {
      const started = performance.now();
      const reply = await client.get(call);
      times.push(performance.now() - started);
      if (reply.status !== 200) throw new Error(`${call} answered ${reply.status}`);
    }
    const { p50, p95, max } = summarise(times);
    results.push({ call, requests: times.length, p50Ms: p50, p95Ms: p95, maxMs: max });
  }
  return { signInScript, jobsSeeded: options.jobs, calls: results };
}

async function measureSignInScript(apiUrl: string, log: (line: string) => void): Promise<DashboardResult['signInScript']> {
  ensureChromium(log);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const scripts: Promise<{ compressed: number; decoded: number }>[] = [];
    page.on('requestfinished', (request) => {
      if (request.resourceType() !== 'script') return;
      scripts.push(request.sizes().then(async (sizes) => ({ compressed: sizes.responseBodySize, decoded: (await (await request.response())!.body()).length })));
    });
    await page.goto(`${apiUrl}/app/sign-in`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const sizes = await Promise.all(scripts);
    const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
    return { compressedKiB: kib(sizes.reduce((sum, size) => sum + size.compressed, 0)), decodedKiB: kib(sizes.reduce((sum, size) => sum + size.decoded, 0)), files: sizes.length };
  } finally {
    await browser.close();
  }
}

/** One real job through the whole stack: its stored reply is what the seeded jobs carry. */
async function oneCompletedJob(stack: BenchStack, key: string): Promise<string> {
  const submit = await fetch(`${stack.apiUrl}/research`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'tobias.fischer@zenithmedical.de' }),
  });
  const { research_id: researchId } = (await submit.json()) as { research_id: string };
  for (let attempt = 0; attempt < 120; attempt++) {
    const rows: Array<{ status: string; completed_reply: string | null }> = await stack.orm.em.fork().getConnection().execute('select status, completed_reply from research_job where id = ?', [researchId]);
    if (rows[0]?.status === 'completed') return researchId;
    if (rows[0]?.status === 'failed') throw new Error(`the template job ${researchId} failed`);
    await delay(500);
  }
  throw new Error(`the template job ${researchId} did not complete within a minute`);
}

/** Copies of the real job over the last weeks (1 in 25 failed and refunded), each with its ledger rows. */
async function seedJobs(stack: BenchStack, accountId: number, keyId: number, templateId: string, jobs: number): Promise<void> {
  const connection = stack.orm.em.fork().getConnection();
  await connection.execute('update account set credit_limit = credit_limit + ? where id = ?', [jobs * 2, accountId]);
  await connection.execute(
    `insert into research_job (id, account_id, product_id, api_key_id, email, request, status, error, submitted_at, started_at, completed_at, completed_reply)
     select 'res_seed' || lpad(n::text, 16, '0'), t.account_id, t.product_id, t.api_key_id, 'person' || n || '@zenithmedical.de', t.request,
            case when n % 25 = 0 then 'failed' else 'completed' end, case when n % 25 = 0 then 'timeout' end,
            now() - (n * interval '2 minutes'), now() - (n * interval '2 minutes'), now() - (n * interval '2 minutes') + interval '31 seconds',
            case when n % 25 = 0 then null else t.completed_reply end
     from generate_series(1, ?) as n, research_job t where t.id = ?`,
    [jobs, templateId],
  );
  await connection.execute(
    `insert into credit_ledger_entry (account_id, research_id, kind, used_delta, limit_after, cycle_start, note, created_at)
     select j.account_id, j.id, k.kind, k.delta, a.credit_limit, a.cycle_start, null, j.submitted_at
     from research_job j join account a on a.id = j.account_id
     cross join lateral (values ('consume', 1), ('refund', -1)) as k(kind, delta)
     where j.account_id = ? and j.api_key_id = ? and j.id like 'res_seed%' and (k.kind = 'consume' or j.status = 'failed')`,
    [accountId, keyId],
  );
  await connection.execute('analyze research_job; analyze credit_ledger_entry');
}

