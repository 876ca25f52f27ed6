import type { Client } from '@temporalio/client';
import { SearchAttributeType, WorkflowExecutionAlreadyStartedError, defineSearchAttributeKey, type Priority } from '@temporalio/common';
import { RESEARCH_WORKFLOW_TYPE, type ResearchWorkflowInput } from '../domain/research/contract.ts';

const ACCOUNT_ATTRIBUTE = defineSearchAttributeKey('ResearchAccountId', SearchAttributeType.KEYWORD);

/** A status read must not hang on a busy or absent Temporal: a cancellation gets this long. */
const CANCEL_TIMEOUT_MS = 750;
const LAST_RESORT_MARGIN_MS = 60_000;

/**
 * Starts a job's workflow (id = research id), bounded by `timeoutMs` so that a
 * caller never hangs on an unreachable Temporal. A workflow of that id that
 * exists, or existed, counts as started: a job's workflow runs once, however
 * often the API and the relay (services/research/workflow-start-relay.ts) start it.
 */
export async function startResearchWorkflow(
  client: Client,
  taskQueue: string,
  input: ResearchWorkflowInput,
  accountId: number,
  timeoutMs: number,
  /** RESEARCH_PRIORITY_KEY of the job's source, and the account's fairness key and weight (domain/research/fairness.ts). */
  priority: Priority,
): Promise<void> {
  try {
    await client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflow.start(RESEARCH_WORKFLOW_TYPE, {
      workflowId: input.researchId,
      taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: ACCOUNT_ATTRIBUTE, value: String(accountId) }],
      // Also after the run closed: a late second start must not research the job again.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      priority,
      // The workflow enforces the 3-minute deadline itself, also when a worker
      // first picks it up late; this is only a last resort against a run that
      // could never finish its cleanup (the sweeper then ends the job).
      workflowExecutionTimeout: `${Math.ceil((input.deadlineMs * 2 + LAST_RESORT_MARGIN_MS) / 1000)}s`,
    }));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Best effort: asks a still-running workflow to stop (it may be gone already). */
export async function cancelResearchWorkflow(client: Client, researchId: string): Promise<void> {
  try {
    await client.connection.withDeadline(Date.now() + CANCEL_TIMEOUT_MS, () => client.workflow.getHandle(researchId).cancel());
  } catch {
    // Not found, already closed or unreachable: the job row is what callers see.
  }
}
