import type { MailMessage } from '../mailer.ts';
import { renderMail } from './layout.ts';

const crmPage = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/app/crm`;

/** The CRM refused the connection's refresh token during a run (revoked or the app uninstalled). `crm`: its name (HubSpot, Pipedrive, Salesforce). */
export function crmConnectionLostEmail(data: { to: string; crm: string; portalId: string; publicUrl: string }): MailMessage {
  return renderMail({
    to: data.to,
    subject: `Your ${data.crm} connection stopped working`,
    heading: `${data.crm} no longer accepts our connection`,
    paragraphs: [
      `${data.crm} refused the connection to ${data.portalId}: it was revoked or the app was uninstalled there. Every CRM integration of your account is paused; its settings and the fields already written in ${data.crm} stay.`,
      `Connect ${data.crm} again on the CRM page, then resume the integrations you want running.`,
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
  /** The contact's record in the CRM's app. */
  recordUrl: string;
  outcome: 'researched' | 'failed';
}

/** One mail per run that researched someone (a run that researched nobody sends none). */
export function crmDigestEmail(data: {
  to: string;
  /** The CRM's name: HubSpot, Pipedrive or Salesforce. */
  crm: string;
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
    `${contact.outcome === 'researched' ? 'Researched' : 'Failed'}: ${contact.name} <${contact.email}>${contact.company ? `, ${contact.company}` : ''}: ${contact.recordUrl}`,
  );
  return renderMail({
    to: data.to,
    subject: `${data.productName}: ${data.researched} ${data.crm} contact${data.researched === 1 ? '' : 's'} researched`,
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
