import { expect } from 'vitest';
import { ZCompletedStatus, type ResearchData } from '../../domain/research/reply.ts';
import type { TestStack } from './test-stack.ts';

export interface CompletedResearch {
  researchId: string;
  data: ResearchData;
  meta: Record<string, any>;
}

/** POST /research, wait for the end, and insist on `completed` with the spec's shape. */
export async function researchCompleted(stack: TestStack, key: string, body: Record<string, unknown>): Promise<CompletedResearch> {
  const accepted = await stack.api.research(key, body);
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const ended = await stack.api.waitForEnd(key, accepted.body.research_id, 90_000);
  expect(ended.body.status, JSON.stringify(ended.body)).toBe('completed');
  const completed = ZCompletedStatus.parse(ended.body);
  return { researchId: completed.research_id, data: completed.data, meta: (completed._meta ?? {}) as Record<string, any> };
}

/** Every provider endpoint's calls since the last reset; `{}` means none at all. */
export function providerCalls(stack: TestStack): Record<string, number> {
  return Object.fromEntries(Object.entries(stack.providerWorld.callsSnapshot()).filter(([, count]) => count > 0));
}

export async function creditState(stack: TestStack, accountId: number) {
  const connection = stack.orm.em.fork().getConnection();
  const [account] = await connection.execute('select credits_used from account where id = ?', [accountId]);
  const rows = await connection.execute('select kind from credit_ledger_entry where account_id = ? order by id', [accountId]);
  return { used: account.credits_used as number, kinds: rows.map((row) => String(row.kind)) };
}

/** Raw rows of a cache table, for checks the reply cannot show (timestamps, row reuse). */
export async function rows(stack: TestStack, sql: string, params: unknown[] = []): Promise<Array<Record<string, any>>> {
  return stack.orm.em.fork().getConnection().execute(sql, params);
}

export const AI_PROSPECT_FIELDS = ['summary', 'opening_talk', 'title'] as const;
export const AI_COMPANY_FIELDS = ['description', 'problems', 'services', 'icp', 'synergy_points', 'discovery_questions', 'insights'] as const;

/** Every AI-written field of the reply, by name. */
export function aiFields(data: ResearchData): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of AI_PROSPECT_FIELDS) fields[`prospect.${name}`] = data.prospect?.[name];
  for (const name of AI_COMPANY_FIELDS) fields[`company.${name}`] = data.company?.[name];
  return fields;
}
