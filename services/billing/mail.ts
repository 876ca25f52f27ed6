import { paymentFailedEmail } from '../../integrations/mail/templates/index.ts';
import type { PaymentFailedNotifier } from './stripe-sync.ts';
import { planLabel } from '../../domain/billing/plans.ts';
import { enqueueMail } from '../mail/outbox.ts';

/**
 * A failed payment e-mails the owner (docs/decisions.md#plans), through the
 * outbox in the webhook's transaction: one mail per invoice, however often
 * Stripe delivers the event or retries the charge.
 */
export function paymentFailedNotifier(publicUrl: string): PaymentFailedNotifier {
  return async (em, { account, invoiceId, plan }) => {
    await enqueueMail(em, {
      accountId: account.id,
      dedupeKey: `payment-failed:${invoiceId}`,
      message: paymentFailedEmail({ to: account.ownerEmail, planName: planLabel(plan), publicUrl }),
    });
  };
}
