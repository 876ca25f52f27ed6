import { randomBytes } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { PURGE_WORKFLOW_TYPE, type PurgeInput, type PurgeReport } from '../../domain/retention/retention.ts';
import { rows } from '../helpers/research-runs.ts';
import type { TestStack } from '../helpers/test-stack.ts';

/** One purge run on the stack's worker, as the Schedule would start it; follows its continue-as-new runs to the end. */
export async function runPurge(stack: TestStack, input: PurgeInput): Promise<PurgeReport> {
  return stack.temporal.workflow.execute(PURGE_WORKFLOW_TYPE, {
    workflowId: `purge-test-${randomBytes(4).toString('hex')}`,
    taskQueue: stack.config.temporal.taskQueue,
    args: [input],
  });
}

/** Whether the Temporal server still holds a workflow's history. */
export async function hasHistory(stack: TestStack, workflowId: string): Promise<boolean> {
  try {
    await stack.temporal.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * The server deletes a closed workflow's history some time after accepting the
 * request (about 30 s on the dev server): wait until it is gone, or say it stayed.
 */
export async function historyGone(stack: TestStack, workflowId: string, timeoutMs = 90_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (await hasHistory(stack, workflowId)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return true;
}

/**
 * A completion-webhook endpoint of the account, written as the Webhooks page
 * would: from now on every job that ends gets a delivery (the database trigger).
 * No dispatcher runs beside these tests, so the deliveries stay as written.
 */
export async function addWebhookEndpoint(stack: TestStack, accountId: number): Promise<void> {
  await rows(
    stack,
    `insert into webhook_endpoint (account_id, url, events, secret, status, created_at)
     values (?, 'https://hooks.example.com/enrichment', '{research.completed,research.failed}', 'not used here', 'active', now())`,
    [accountId],
  );
}

/** An uploaded list of the account (a finished one: the purge never takes a running list), as the Lists page leaves it. */
export async function addFinishedList(stack: TestStack, accountId: number, id: string, createdAt: Date): Promise<void> {
  await rows(
    stack,
    `insert into prospect_list (id, account_id, name, status, headers, cells, first_row_number, mapping, created_at)
     values (?, ?, 'attendees.csv', 'completed', '["email"]', '[["ada@example.com"]]', 2, '{"email":0}', ?)`,
    [id, accountId, createdAt],
  );
}

/** Calendar months later, UTC (the purge counts in calendar months). */
export function monthsAfter(date: Date, months: number): Date {
  const later = new Date(date);
  later.setUTCMonth(later.getUTCMonth() + months);
  return later;
}

/** Rows of every table that holds an account's data, by table. */
export async function accountRowCounts(stack: TestStack, accountId: number): Promise<Record<string, number>> {
  const [counts] = await rows(
    stack,
    `select (select count(*) from research_job where account_id = ?) as research_job,
            (select count(*) from prospect where account_id = ?) as prospect,
            (select count(*) from company where account_id = ?) as company,
            (select count(*) from decision_maker d join company c on c.id = d.company_id where c.account_id = ?) as decision_maker,
            (select count(*) from product_context where account_id = ?) as product_context,
            (select count(*) from api_key where account_id = ?) as api_key,
            (select count(*) from credit_ledger_entry where account_id = ?) as credit_ledger_entry,
            (select count(*) from webhook_endpoint where account_id = ?) as webhook_endpoint,
            (select count(*) from webhook_delivery where account_id = ?) as webhook_delivery,
            (select count(*) from prospect_list where account_id = ?) as prospect_list`,
    Array(10).fill(accountId),
  );
  return Object.fromEntries(Object.entries(counts!).map(([table, count]) => [table, Number(count)]));
}

/** Waits for several histories at once; the ids whose history stayed. */
export async function historiesLeft(stack: TestStack, workflowIds: string[]): Promise<string[]> {
  const gone = await Promise.all(workflowIds.map((id) => historyGone(stack, id)));
  return workflowIds.filter((_, index) => !gone[index]);
}
