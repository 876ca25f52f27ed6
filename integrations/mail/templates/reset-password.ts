import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

export function resetPasswordEmail(data: { to: string; url: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: 'Reset your password',
    heading: 'Reset your password',
    paragraphs: [
      'Someone asked to reset the password of your account. Choose a new one with the link below.',
      'Setting a new password signs out every other session of your account.',
    ],
    action: { label: 'Choose a new password', url: data.url },
    footnote: 'If you did not ask for this, ignore this e-mail: your password stays as it is.',
  });
}
