import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

export function signInLinkEmail(data: { to: string; url: string; minutes: number }): MailMessage {
  return renderMail({
    to: data.to,
    subject: 'Your sign-in link',
    heading: 'Sign in with this link',
    paragraphs: [`Someone asked for a link to sign in to your account without its password. It works once, for ${data.minutes} minutes.`],
    action: { label: 'Sign in', url: data.url },
    footnote: 'If you did not ask for this, ignore this e-mail: no one can use the link without your mailbox.',
  });
}
