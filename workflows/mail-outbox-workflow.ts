import { continueAsNew, defineSignal, proxyActivities, setHandler, type ActivityOptions } from '@temporalio/workflow';
import type { MailOutboxActivities } from '../activities/mail-outbox.ts';
import { MAIL_QUEUED_SIGNAL, type MailOutboxPass } from '../domain/mail/outbox-contract.ts';

/**
 * One pass sends up to 100 mails over SMTP. SMTP down or answering 4yz is
 * `SmtpUnavailable` and retried, backing off to a minute, for about ten
 * minutes; after that this run fails and the Schedule's next run (every
 * minute) takes over, so waiting mail is never dropped.
 */
const mailSend: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 15,
    nonRetryableErrorTypes: [],
  },
};

const { sendPendingMail } = proxyActivities<MailOutboxActivities>(mailSend);

export const mailQueuedSignal = defineSignal(MAIL_QUEUED_SIGNAL);

/** Passes per run before continuing as new, to keep the history short under a steady flow of nudges. */
const MAX_PASSES = 50;

/**
 * Sends what the outbox holds. Started by its Schedule every minute and by
 * signal-with-start after a commit that enqueued mail; a nudge that arrives
 * while a pass runs makes the run look once more, so no mail waits for the
 * Schedule because its nudge came a moment too late.
 */
export async function mailOutboxWorkflow(): Promise<MailOutboxPass> {
  let isNudged = false;
  setHandler(mailQueuedSignal, () => {
    isNudged = true;
  });
  const total: MailOutboxPass = { sent: 0, refused: 0, isDrained: false };
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    isNudged = false;
    const result = await sendPendingMail();
    total.sent += result.sent;
    total.refused += result.refused;
    if (result.isDrained && !isNudged) return { ...total, isDrained: true };
  }
  return continueAsNew<typeof mailOutboxWorkflow>();
}
