import type { Client } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { RESEARCH_WORKFLOW_TYPE, type ResearchWorkflowInput } from '../domain/research-contract.ts';

const ACCOUNT_ATTRIBUTE = defineSearchAttributeKey('ResearchAccountId', SearchAttributeType.KEYWORD);

/** A status read must not hang on a busy or absent Temporal: a cancellation gets this long. */
const CANCEL_TIMEOUT_MS = 750;
const WORKFLOW_START_TIMEOUT_MS = 5_000;
const LAST_RESORT_MARGIN_MS = 60_000;

export async function startResearchWorkflow(
  client: Client,
  taskQueue: string,
  input: ResearchWorkflowInput,
  accountId: number,
): Promise<void> {
  // Bounded: a caller waiting on an unreachable Temporal gets its 500 (and refund) quickly.
  await client.connection.withDeadline(Date.now() + WORKFLOW_START_TIMEOUT_MS, () => client.workflow.start(RESEARCH_WORKFLOW_TYPE, {
    workflowId: input.researchId,
    taskQueue,
    args: [input],
    typedSearchAttributes: [{ key: ACCOUNT_ATTRIBUTE, value: String(accountId) }],
    // The workflow enforces the 3-minute deadline itself, also when a worker
    // first picks it up late; this is only a last resort against a run that
    // could never finish its cleanup (the sweeper then ends the job).
    workflowExecutionTimeout: `${Math.ceil((input.deadlineMs * 2 + LAST_RESORT_MARGIN_MS) / 1000)}s`,
  }));
}

/** Best effort: asks a still-running workflow to stop (it may be gone already). */
export async function cancelResearchWorkflow(client: Client, researchId: string): Promise<void> {
  try {
    await client.connection.withDeadline(Date.now() + CANCEL_TIMEOUT_MS, () => client.workflow.getHandle(researchId).cancel());
  } catch {
    // Not found, already closed or unreachable: the job row is what callers see.
  }
}
