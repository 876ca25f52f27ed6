import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

const crmPage = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/app/crm`;

/** HubSpot refused the connection's refresh token during a run (revoked or the app uninstalled). */
export function crmConnectionLostEmail(data: { to: string; portalId: number; publicUrl: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: 'Your HubSpot connection stopped working',
    heading: 'HubSpot no longer accepts our connection',
    paragraphs: [
      `HubSpot refused the connection to portal ${data.portalId}: it was revoked or the app was uninstalled there. Every CRM integration of your account is paused; its settings and the properties already written in HubSpot stay.`,
      'Connect HubSpot again on the CRM page, then resume the integrations you want running.',
    ],
    action: { label: 'Open the CRM page', url: crmPage(data.publicUrl) },
  });
}

/** The chat webhook answered 403, 404 or 410 (Slack: the hook was removed, the channel archived or posting forbidden). */
export function crmWebhookDisabledEmail(data: { to: string; productName: string; answer: string; publicUrl: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: `Chat messages for ${data.productName} are turned off`,
    heading: 'The chat webhook refused our messages',
    paragraphs: [
      `The chat webhook of ${data.productName}'s CRM integration answered "${data.answer}", which means it no longer takes messages. We stopped posting to it; the sync itself goes on.`,
      'Set a new webhook URL on the CRM page to get the messages again.',
    ],
    action: { label: 'Open the CRM page', url: crmPage(data.publicUrl) },
  });
}

export interface DigestContact {
  name: string;
  email: string;
  company: string | null;
  hubspotUrl: string;
  outcome: 'researched' | 'failed';
}

/** One mail per run that researched someone (a run that researched nobody sends none). */
export function crmDigestEmail(data: {
  to: string;
  productName: string;
  researched: number;
  failed: number;
  skipped: string;
  creditsUsed: number;
  stoppedForCredits: boolean;
  contacts: DigestContact[];
  publicUrl: string;
}): MailMessage {
  const lines = data.contacts.map((contact) =>
    `${contact.outcome === 'researched' ? 'Researched' : 'Failed'}: ${contact.name} <${contact.email}>${contact.company ? `, ${contact.company}` : ''}: ${contact.hubspotUrl}`,
  );
  return renderMail({
    to: data.to,
    subject: `${data.productName}: ${data.researched} HubSpot contact${data.researched === 1 ? '' : 's'} researched`,
    heading: `CRM sync for ${data.productName}`,
    paragraphs: [
      `Researched ${data.researched}, failed ${data.failed}, skipped ${data.skipped}. Credits used: ${data.creditsUsed}.`,
      ...(data.stoppedForCredits ? ['The run stopped early: the account ran out of credits. The remaining contacts are taken on the next run once credits are available.'] : []),
      ...lines,
    ],
    action: { label: 'See the run on the CRM page', url: crmPage(data.publicUrl) },
    footnote: 'You get this e-mail after each sync run that researched someone. Turn it off or change its address on the CRM page.',
  });
}
