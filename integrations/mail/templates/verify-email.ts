import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

export function verifyEmail(data: { to: string; url: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: 'Verify your e-mail address',
    heading: 'Confirm your e-mail address',
    paragraphs: ['Confirm this address for your Prospect enrichment account: you sign in with it, and usage alerts and digests go to it.'],
    action: { label: 'Verify e-mail address', url: data.url },
    footnote: 'If you did not ask for this, ignore this e-mail: nothing happens without the confirmation.',
  });
}
