import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { initOrm } from '../../../db/orm.ts';
import type { ProductContext } from '../../../domain/research/product-context.ts';
import { createAccount } from '../../../services/accounts/accounts.ts';
import { createApiKey } from '../../../services/accounts/api-keys.ts';
import { jobCounts } from './invariants.ts';

export interface Customer {
  accountId: number;
  key: string;
}

export interface Submitted {
  /** HTTP status, or 0 when no answer came (connection refused or reset). */
  status: number;
  researchId: string | null;
  body: unknown;
  error: string | null;
}

export interface SandboxPerson {
  email: string;
  fullName: string;
  company: string;
}

const PRODUCT: ProductContext = {
  name: 'PipelineIQ',
  description: 'Revenue forecasting for B2B sales teams',
  keyFeatures: ['pipeline forecasting', 'CRM sync'],
  targetCustomers: ['sales leaders', 'revenue operations'],
  productUrl: null,
};

/**
 * Scale accounts (news and decision makers included, so every provider is
 * asked) with one key each, made through the services before any fault. One
 * account per case keeps each case's ledger and cache apart.
 */
export async function createCustomers(databaseUrl: string, count: number, credits: number): Promise<Customer[]> {
  const orm = await initOrm(databaseUrl, { migrate: false, poolMax: 2 });
  try {
    const customers: Customer[] = [];
    for (let index = 0; index < count; index += 1) {
      const account = await createAccount(orm.em.fork(), { ownerEmail: `chaos-${index}-${randomBytes(4).toString('hex')}@example.com`, plan: 'scale', language: 'en' }, new Date());
      // More than a Scale cycle holds (a custom plan, docs/api.md#credits-and-plans) only when a run asks for it.
      await orm.em.fork().getConnection().execute('update account set credit_limit = greatest(credit_limit, ?) where id = ?', [credits, account.id]);
      const { key } = await createApiKey(orm.em.fork(), { accountId: account.id, productContext: PRODUCT });
      customers.push({ accountId: account.id, key });
    }
    return customers;
  } finally {
    await orm.close();
  }
}

/** Real people of the sandbox world, known to both person providers, each with a company. */
export async function samplePeople(providerUrl: string, limit: number): Promise<SandboxPerson[]> {
  const response = await fetch(`${providerUrl}/__admin/sample-people?knownTo=both&limit=${limit}`);
  const { people } = (await response.json()) as { people: SandboxPerson[] };
  if (people.length < limit) throw new Error(`the sandbox world has only ${people.length} people known to both providers`);
  return people;
}

export async function submit(apiUrl: string, key: string, email: string, idempotencyKey?: string): Promise<Submitted> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  try {
    const response = await fetch(`${apiUrl}/research`, { method: 'POST', headers, body: JSON.stringify({ email }), signal: AbortSignal.timeout(30_000) });
    const body = (await response.json().catch(() => null)) as { research_id?: string } | null;
    return { status: response.status, researchId: response.status === 202 ? (body?.research_id ?? null) : null, body, error: null };
  } catch (error) {
    return { status: 0, researchId: null, body: null, error: String((error as Error).cause ?? error) };
  }
}

/** Runs `task` over `items` with at most `concurrency` at a time, keeping the order of results. */
export async function mapLimited<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  });
  await Promise.all(lanes);
  return results;
}

export async function getStatus(apiUrl: string, key: string, researchId: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${apiUrl}/research-status/${encodeURIComponent(researchId)}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** Waits until `predicate` holds over the account's job states, or `timeoutMs` passes; returns the last states. */
export async function waitForJobs(
  sql: pg.Pool,
  accountId: number,
  predicate: (counts: Record<string, number>) => boolean,
  timeoutMs: number,
  onTick?: (counts: Record<string, number>) => void,
): Promise<{ counts: Record<string, number>; isMet: boolean }> {
  const deadline = Date.now() + timeoutMs;
  let lastTick = Date.now();
  for (;;) {
    const counts = await jobCounts(sql, accountId);
    if (predicate(counts)) return { counts, isMet: true };
    if (Date.now() > deadline) return { counts, isMet: false };
    if (onTick && Date.now() - lastTick >= 10_000) {
      lastTick = Date.now();
      onTick(counts);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const isSettled = (counts: Record<string, number>) => !counts.queued && !counts.processing;

export function formatCounts(counts: Record<string, number>): string {
  const order = ['queued', 'processing', 'completed', 'failed'];
  return order.filter((status) => counts[status]).map((status) => `${counts[status]} ${status}`).join(', ') || 'no jobs';
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Steers a sandbox through its admin endpoint. */
export async function postJson(url: string, body: unknown): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
}
