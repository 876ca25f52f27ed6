import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

/**
 * To an address that already has an account, when someone asks to sign up
 * with it or to move another account to it. The reply they got was the one a
 * free address gets, so that no one learns from it who has an account; the
 * owner learns it here.
 */
export function addressInUseEmail(data: { to: string; attempt: 'sign-up' | 'change-email'; signInUrl: string }): MailMessage {
  const what = data.attempt === 'sign-up' ? 'create a new account with this address' : 'move another account to this address';
  return renderMail({
    to: data.to,
    subject: 'This address already has an account',
    heading: 'This address already has an account',
    paragraphs: [`Someone asked to ${what}. It already belongs to your account, so nothing was changed.`, 'If it was you, sign in instead; if you forgot the password, reset it from the sign-in page.'],
    action: { label: 'Sign in', url: data.signInUrl },
    footnote: 'If it was not you, ignore this e-mail: your account stays as it is.',
  });
}
