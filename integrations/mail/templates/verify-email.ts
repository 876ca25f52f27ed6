import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

export function verifyEmail(data: { to: string; url: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: 'Verify your e-mail address',
    heading: 'Confirm your e-mail address',
    paragraphs: ['Thanks for signing up. Confirm this address to create API keys and receive usage alerts.'],
    action: { label: 'Verify e-mail address', url: data.url },
    footnote: 'If you did not sign up, ignore this e-mail: nothing happens without the confirmation.',
  });
}
