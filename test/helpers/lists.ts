import { DashboardClient, type DashboardReply } from '../../scripts/lib/dashboard-client.ts';
import type { PlanName } from '../../domain/billing/plans.ts';
import { PLANS } from '../../domain/billing/plans.ts';
import type { TestMailSandbox } from './mail-sandbox.ts';
import type { TestStack } from './test-stack.ts';

let counter = 0;

export interface ListCustomer {
  client: DashboardClient;
  /** The owner's sign-in, for a browser. */
  email: string;
  password: string;
  accountId: number;
  /** An API key of the account (its product context is the list's). */
  key: string;
  keyId: number;
}

/** A signed-in dashboard owner on `plan` with one key tied to a product context. */
export async function listCustomer(stack: TestStack, mail: TestMailSandbox, plan: PlanName = 'growth'): Promise<ListCustomer> {
  const email = `lists-${Date.now()}-${counter++}@example.com`;
  const password = 'correct horse battery';
  const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, password);
  const connection = stack.orm.em.fork().getConnection();
  const [{ id: accountId }] = await connection.execute('select id from account where owner_email = ?', [email]);
  await connection.execute('update account set plan = ?, credit_limit = ? where id = ?', [plan, PLANS[plan].creditsPerCycle, accountId]);
  const { key, keyId } = await stack.createKey(accountId);
  return { client, email, password, accountId, key, keyId };
}

/** Uploads CSV text as the page does: the file's own bytes. */
export function uploadCsv(client: DashboardClient, csv: string | Buffer, name = 'prospects.csv'): Promise<DashboardReply> {
  return client.call('POST', `/app/api/lists?name=${encodeURIComponent(name)}`, csv, { 'content-type': 'text/csv' });
}

/** Polls the list until it has ended (completed, cancelled, stopped for credits). */
export async function waitForListEnd(client: DashboardClient, listId: string, timeoutMs = 150_000): Promise<DashboardReply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await client.get(`/app/api/lists/${listId}`);
    if (['completed', 'cancelled', 'stopped_no_credits'].includes(reply.body.list?.status)) return reply;
    if (Date.now() > deadline) throw new Error(`list ${listId} still ${reply.body.list?.status}: ${JSON.stringify(reply.body.progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The account's credits and ledger, to check that nothing was charged twice. */
export async function creditsOf(stack: TestStack, accountId: number): Promise<{ used: number; consumed: string[]; refunded: string[] }> {
  const connection = stack.orm.em.fork().getConnection();
  const [account] = await connection.execute('select credits_used from account where id = ?', [accountId]);
  const ledger: Array<{ kind: string; research_id: string | null }> = await connection.execute(
    `select kind, research_id from credit_ledger_entry where account_id = ? and kind in ('consume', 'refund') order by id`,
    [accountId],
  );
  return {
    used: account.credits_used,
    consumed: ledger.filter((row) => row.kind === 'consume').map((row) => row.research_id!),
    refunded: ledger.filter((row) => row.kind === 'refund').map((row) => row.research_id!),
  };
}
