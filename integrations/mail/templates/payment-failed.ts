import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

export function paymentFailedEmail(data: { to: string; planName: string; publicUrl: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: 'Your payment did not go through',
    heading: 'We could not renew your subscription',
    paragraphs: [
      `The payment for your ${data.planName} plan failed. Your plan stays active while the payment is retried.`,
      'Update your card in the billing page to keep your plan; if the payment keeps failing, the subscription is cancelled and the account returns to the Free plan.',
    ],
    action: { label: 'Update payment details', url: `${data.publicUrl.replace(/\/+$/, '')}/app/billing` },
  });
}
