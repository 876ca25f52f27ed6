// Shared by the outbox's workflow, its worker and the processes that nudge it.

export const MAIL_OUTBOX_WORKFLOW_TYPE = 'mailOutboxWorkflow';
/** Sent with signal-with-start after a commit that enqueued mail: nudges coalesce into the running sender. */
export const MAIL_QUEUED_SIGNAL = 'mailQueued';

/** Failure types of the outbox activity (explicit strings, docs/architecture.md#activity-option-profiles-and-failure-types). */
export const MAIL_OUTBOX_FAILURE_TYPES = {
  /** SMTP unreachable or answering 4yz: the activity is retried by its retry policy. */
  smtpUnavailable: 'SmtpUnavailable',
} as const;

/**
 * Mail goes out on its own task queue, beside the research queue: a backlog of
 * research tasks must not hold up an alert, as the sweeper found for its sweeps.
 */
export function mailTaskQueue(researchTaskQueue: string): string {
  return `${researchTaskQueue}-mail`;
}

/** One nudged sender per queue (the Schedule's runs get their own ids, with a timestamp). */
export function mailOutboxWorkflowId(researchTaskQueue: string): string {
  return `mail-outbox-${researchTaskQueue}`;
}

export interface MailOutboxPass {
  sent: number;
  /** Refused for good this pass (5yz): tried again later with backoff, then given up. */
  refused: number;
  /** No due row was left when the pass ended. */
  isDrained: boolean;
}
