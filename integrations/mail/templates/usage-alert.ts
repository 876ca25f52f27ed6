import type { MailMessage } from '../mailer.ts';
import { formatMailDate, renderMail } from './layout.ts';

export interface UsageAlertData {
  to: string;
  used: number;
  limit: number;
  /** The threshold crossed: 75 or 95 (docs/mail.md#usage-alerts). */
  percent: number;
  cycleEnd: Date;
  /** Base address of the service; the upgrade link is its billing page. */
  publicUrl: string;
}

export function usageAlertEmail(data: UsageAlertData): MailMessage {
  const left = Math.max(0, data.limit - data.used);
  return renderMail({
    to: data.to,
    subject: `You have used ${data.percent}% of your credits`,
    heading: `${data.percent}% of this cycle's credits used`,
    paragraphs: [
      `Your account has used ${data.used} of its ${data.limit} credits in this billing cycle; ${left} ${left === 1 ? 'is' : 'are'} left.`,
      `Credits reset on ${formatMailDate(data.cycleEnd)}. Until then, research requests are refused once the credits run out. Upgrading adds credits at once.`,
    ],
    action: { label: 'Upgrade your plan', url: `${data.publicUrl.replace(/\/+$/, '')}/app/billing` },
    footnote: 'You can turn usage alerts off in the dashboard preferences.',
  });
}
