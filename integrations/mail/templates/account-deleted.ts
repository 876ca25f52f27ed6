import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

export function accountDeletedEmail(data: { to: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: 'Your account has been deleted',
    heading: 'Your account has been deleted',
    paragraphs: [
      'As you asked, your account has been deleted: its keys, jobs, enriched data, product contexts and settings are gone.',
      'Billing records are kept: invoices (tax records) and the ledger of credits used.',
    ],
    footnote: 'This is the last e-mail we send to this address.',
  });
}
