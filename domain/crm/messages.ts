// What a sync writes: the contact's properties (docs/decisions.md#crm-integration: lists one item
// per line, news as `YYYY-MM — summary (url)`, a missing value not sent), the
// note (HTML, every value escaped), and the Slack-format chat messages
// (docs/crm.md#chat-messages: `text` as the fallback plus Block Kit `blocks`;
// `& < >` escaped in mrkdwn; section text ≤ 3000 characters).
import { SKIP_REASON_LABELS, SKIP_REASONS, type CrmRunCounts } from './crm.ts';
import { crmPropertyName, type CrmField } from './fields.ts';
import type { ResearchData } from '../research/reply.ts';

const lines = (items: Array<string | null> | null | undefined) => {
  const kept = (items ?? []).map((item) => item?.trim()).filter((item): item is string => Boolean(item));
  return kept.length > 0 ? kept.join('\n') : null;
};

/** The research's values by field; null for what the research did not find (then not sent). */
export function crmFieldValues(data: ResearchData): Record<Exclude<CrmField, 'status' | 'enriched_at'>, string | null> {
  const news = (data.company?.news ?? []).map((item) => (item.summary ? `${item.date} — ${item.summary} (${item.url})` : null));
  return {
    prospect_summary: data.prospect?.summary?.trim() || null,
    opening_talk: lines(data.prospect?.opening_talk),
    synergy_points: lines(data.company?.synergy_points),
    discovery_questions: lines(data.company?.discovery_questions),
    company_news: lines(news),
    company_industry: data.company?.industry?.trim() || null,
    company_employees: data.company?.employees?.trim() || null,
  };
}

/** The content properties to PATCH, prefixed for the product; status and enriched_at go in the final write. */
/** Our content fields with a value (status and enriched_at apart), at most 65,536 characters each. */
export function crmContentValues(data: ResearchData): Partial<Record<CrmField, string>> {
  return Object.fromEntries(
    Object.entries(crmFieldValues(data))
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .map(([field, value]) => [field, value.slice(0, 65_536)]),
  );
}

/** The same as HubSpot properties of the product (`pe_<id>_<field>`), for runs started before batch writes. */
export function crmContentProperties(productId: number, data: ResearchData): Record<string, string> {
  return Object.fromEntries(Object.entries(crmContentValues(data)).map(([field, value]) => [crmPropertyName(productId, field as CrmField), value]));
}

export function escapeHtml(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/** The note on the contact's timeline; every value from the research (model and provider text) is escaped. */
export function crmNoteHtml(productName: string, data: ResearchData): string {
  const values = crmFieldValues(data);
  const section = (title: string, text: string | null) => {
    if (!text) return '';
    const items = text.split('\n');
    return items.length > 1
      ? `<p><strong>${escapeHtml(title)}</strong></p><ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`
      : `<p><strong>${escapeHtml(title)}</strong><br>${escapeHtml(text)}</p>`;
  };
  const company = data.company?.name ? ` (${data.company.name})` : '';
  return [
    `<h3>Prospect research for ${escapeHtml(productName)}${escapeHtml(company)}</h3>`,
    section('Summary', values.prospect_summary),
    section('Opening talk', values.opening_talk),
    section('Synergy points', values.synergy_points),
    section('Discovery questions', values.discovery_questions),
    section('Company news', values.company_news),
    section('Industry', values.company_industry),
    section('Employees', values.company_employees),
  ].join('');
}

/** Slack mrkdwn: `&`, `<` and `>` escaped, so nothing in a name becomes a link or a mention. */
export const escapeMrkdwn = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export interface ChatMessage {
  text: string;
  blocks: unknown[];
}

export function contactChatMessage(input: { productName: string; contactName: string; email: string; contactUrl: string; data: ResearchData }): ChatMessage {
  const values = crmFieldValues(input.data);
  const who = `${input.contactName} (${input.email})`;
  const fields = [
    values.company_industry && { type: 'mrkdwn', text: `*Industry:*\n${escapeMrkdwn(clip(values.company_industry, 1900))}` },
    values.company_employees && { type: 'mrkdwn', text: `*Employees:*\n${escapeMrkdwn(clip(values.company_employees, 1900))}` },
  ].filter(Boolean);
  return {
    text: clip(`${input.productName}: researched ${who}`, 3000),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: clip(`*Researched <${input.contactUrl}|${escapeMrkdwn(input.contactName)}>* (${escapeMrkdwn(input.email)})`, 3000) } },
      ...(values.prospect_summary ? [{ type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(clip(values.prospect_summary, 2900)) } }] : []),
      ...(fields.length > 0 ? [{ type: 'section', fields }] : []),
    ],
  };
}

export function skippedSummary(skipped: CrmRunCounts['skipped']): string {
  const parts = SKIP_REASONS.filter((reason) => skipped[reason] > 0).map((reason) => `${skipped[reason]} ${SKIP_REASON_LABELS[reason]}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

export function runSummaryChatMessage(input: { crm: string; productName: string; counts: CrmRunCounts; stoppedForCredits: boolean; startedAt: Date; minScore: number }): ChatMessage {
  const { counts } = input;
  const headline = `${input.productName}: ${counts.researched} ${input.crm} contact${counts.researched === 1 ? '' : 's'} researched`;
  return {
    text: clip(input.stoppedForCredits ? `${headline}; stopped: out of credits` : headline, 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(`CRM sync: ${input.productName}`, 150) } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Found:*\n${counts.found}` },
          { type: 'mrkdwn', text: `*Researched:*\n${counts.researched}` },
          { type: 'mrkdwn', text: `*Failed:*\n${counts.failed}` },
          { type: 'mrkdwn', text: `*Skipped:*\n${escapeMrkdwn(skippedSummary(counts.skipped))}` },
          { type: 'mrkdwn', text: `*Credits used:*\n${counts.creditsUsed}` },
        ],
      },
      ...(input.stoppedForCredits ? [{ type: 'section', text: { type: 'mrkdwn', text: '*Stopped early:* the account ran out of credits. The rest are taken on the next run.' } }] : []),
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Run ${input.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC · minimum score ${input.minScore}` }] },
    ],
  };
}

// Times as the dashboard shows every time (dashboard/src/lib/format.ts): an account has no time zone of
// its own, and the schedule's hour is UTC too.
const holdOffTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/**
 * What a CRM's allowance hold-off means for the account's owner: why no call
 * goes to the CRM, and until when (the preview's answer; the waiting run's
 * line on the CRM page).
 */
export function crmHoldOffText(crm: string, holdOff: { reason: string; until: Date }): string {
  return `${holdOff.reason}. Nothing is sent to ${crm} until ${holdOffTime.format(holdOff.until)} UTC; runs wait and go on then.`;
}
