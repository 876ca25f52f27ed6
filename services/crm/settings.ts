// A product's CRM settings (docs/crm.md#what-a-sync-does), validated on the server with
// one message per field, kept in PostgreSQL; the Schedule follows them
// (services/crm/schedules.ts). Settings edited during a run apply to the
// next: a run reads them once, when it starts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { CADENCES, CRM_DEFAULTS, RESEARCH_LIMIT_MAX, type CrmSettings } from '../../domain/crm/crm.ts';
import { canMapOnto, CRM_MAPPABLE_FIELD_LABELS, CRM_MAPPABLE_FIELDS, WRITE_RULES, type MappableProperty, type PropertyMapping } from '../../domain/crm/write-rules.ts';
import { isValidEmail, normaliseEmail } from '../../domain/research/email-address.ts';
import { assertResolvesPublicly, isAllowListed, OutboundRefused, type OutboundPolicy } from '../../integrations/web/outbound-guard.ts';

export const ZCrmSettingsInput = z.object({
  cadence: z.enum(CADENCES, { error: 'Choose daily, Monday and Thursday, or weekly on Monday.' }),
  hourUtc: z.number({ error: 'Enter an hour from 0 to 23.' }).int('Enter a whole hour from 0 to 23.').min(0, 'Enter an hour from 0 to 23.').max(23, 'Enter an hour from 0 to 23.'),
  // CRM keys: HubSpot names, Pipedrive hash keys, Salesforce API names (`LeadScore__c`).
  scoreProperty: z.string().trim().min(1, 'Choose the lead-score property.').max(100).regex(/^[A-Za-z0-9_]+$/, 'Choose one of the portal\u2019s number properties.'),
  minScore: z.number({ error: 'Enter a minimum score.' }).min(0, 'Enter a score of 0 or more.').max(1_000_000, 'Enter a smaller score.'),
  skipFreeMail: z.boolean(),
  skipRoleBased: z.boolean(),
  researchLimit: z
    .number({ error: `Enter a limit from 1 to ${RESEARCH_LIMIT_MAX}.` })
    .int(`Enter a whole number from 1 to ${RESEARCH_LIMIT_MAX}.`)
    .min(1, `Enter a limit from 1 to ${RESEARCH_LIMIT_MAX}.`)
    .max(RESEARCH_LIMIT_MAX, `The limit is at most ${RESEARCH_LIMIT_MAX} contacts per run.`),
  chatWebhookUrl: z.string().trim().max(2000, 'That address is too long.').nullable(),
  digestEnabled: z.boolean(),
  digestEmail: z.string().trim().max(254).nullable(),
  active: z.boolean(),
  propertyMappings: z
    .array(z.object({
      field: z.enum(CRM_MAPPABLE_FIELDS, { error: 'Choose which research output to write.' }),
      property: z.string().trim().min(1, 'Choose the CRM field to write.').max(100).regex(/^[A-Za-z0-9_]+$/, 'Choose one of the portal\u2019s properties.'),
      rule: z.enum(WRITE_RULES, { error: 'Choose only fill when empty, overwrite, or never.' }),
    }), { error: 'Invalid mappings.' })
    .max(CRM_MAPPABLE_FIELDS.length, `At most ${CRM_MAPPABLE_FIELDS.length} mappings, one per research output.`)
    .default([]),
  reEnrichAfterDays: z
    .number({ error: 'Enter a number of days from 1 to 365.' })
    .int('Enter a whole number of days from 1 to 365.')
    .min(1, 'Enter a number of days from 1 to 365.')
    .max(365, 'Enter a number of days from 1 to 365.')
    .nullable()
    .default(null),
  /** Salesforce: which records a run reads, Contacts or Leads; null (the other CRMs, or Salesforce's default: Contacts). */
  crmObject: z.enum(['Contact', 'Lead'], { error: 'Choose Contacts or Leads.' }).nullable().default(null),
});
/** What a caller sends (mappings and re-enrichment may be left out: none, off). */
export type CrmSettingsInput = z.input<typeof ZCrmSettingsInput>;
/** What validation returns. */
export type CrmSettingsValues = z.output<typeof ZCrmSettingsInput>;

export type FieldErrors = Partial<Record<keyof CrmSettingsValues, string>>;

export class CrmSettingsInvalid extends Error {
  readonly fields: FieldErrors;
  constructor(fields: FieldErrors) {
    super(`invalid CRM settings: ${Object.keys(fields).join(', ')}`);
    this.fields = fields;
  }
}

export interface SettingsChecks {
  /** The connected CRM's name, for the messages (HubSpot when none is connected yet). */
  crm?: string;
  /** The portal's fields that can be a lead score (the adapter's field metadata), when a connection exists (null: not checked). */
  scoreProperties: string[] | null;
  /** The portal's fields a mapping can write (the adapter's field metadata); null: not connected, so no mapping can be saved. */
  mappableProperties: MappableProperty[] | null;
  /** Whom a chat webhook may reach: public addresses, and the development allow-list's hosts (over http too). */
  outbound: OutboundPolicy;
}

/** Parses and checks the input; throws CrmSettingsInvalid with a message per field. */
export async function validateCrmSettings(raw: unknown, checks: SettingsChecks): Promise<CrmSettingsValues> {
  const parsed = ZCrmSettingsInput.safeParse(raw);
  const fields: FieldErrors = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'cadence') as keyof CrmSettingsValues;
      fields[field] ??= issue.message;
    }
    throw new CrmSettingsInvalid(fields);
  }
  const input = { ...parsed.data, chatWebhookUrl: parsed.data.chatWebhookUrl || null, digestEmail: parsed.data.digestEmail ? normaliseEmail(parsed.data.digestEmail) : null };
  if (checks.scoreProperties && !checks.scoreProperties.includes(input.scoreProperty)) {
    const crm = checks.crm ?? 'HubSpot';
    fields.scoreProperty = `${input.scoreProperty} is not a ${crm} number field that can be a lead score. If you created it just now, reload the fields from ${crm}.`;
  }
  if (input.digestEmail !== null && !isValidEmail(input.digestEmail)) fields.digestEmail = 'Enter an e-mail address, or leave it empty for the account e-mail.';
  const mappingProblem = mappingsProblem(input.propertyMappings, checks.mappableProperties, checks.crm ?? 'HubSpot');
  if (mappingProblem) fields.propertyMappings = mappingProblem;
  if (input.chatWebhookUrl !== null) {
    const problem = await webhookProblem(input.chatWebhookUrl, checks);
    if (problem) fields.chatWebhookUrl = problem;
  }
  if (Object.keys(fields).length > 0) throw new CrmSettingsInvalid(fields);
  return input;
}

/** Each output mapped once, each property written by one output, onto a property of the portal that fits it. */
function mappingsProblem(mappings: PropertyMapping[], mappable: MappableProperty[] | null, crm: string): string | null {
  if (mappings.length === 0) return null;
  if (mappable === null) return `Connect ${crm} to write onto its fields.`;
  const byName = new Map(mappable.map((property) => [property.name, property]));
  const fields = new Set<string>();
  const properties = new Set<string>();
  for (const mapping of mappings) {
    const label = CRM_MAPPABLE_FIELD_LABELS[mapping.field];
    const target = byName.get(mapping.property);
    if (!target) return `${mapping.property} is not a ${crm} text or number field we can write. If you created it just now, reload the fields from ${crm}.`;
    if (!canMapOnto(mapping.field, target)) return `${target.label} (${target.name}) is a number: only Company Employees can be written to it.`;
    if (fields.has(mapping.field)) return `${label} is mapped twice: map each research output once.`;
    if (properties.has(mapping.property)) return `${target.label} (${target.name}) is mapped twice: one research output per property.`;
    fields.add(mapping.field);
    properties.add(mapping.property);
  }
  return null;
}

/**
 * An https URL whose host resolves only to public addresses (no SSRF into our
 * network), checked by the outbound guard; the development allow-list's hosts
 * excepted, over http too.
 */
async function webhookProblem(text: string, checks: SettingsChecks): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Enter the full webhook address, starting with https://.';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowListed(url, checks.outbound))) return 'The webhook address must start with https://.';
  if (url.username || url.password) return 'The webhook address must not hold a user name or password.';
  try {
    await assertResolvesPublicly(url, text, checks.outbound);
  } catch (error) {
    if (error instanceof OutboundRefused) return error.message;
    throw error;
  }
  return null;
}

interface SettingsRow {
  product_id: number;
  account_id: number;
  cadence: CrmSettings['cadence'];
  hour_utc: number;
  score_property: string;
  min_score: string;
  skip_free_mail: boolean;
  skip_role_based: boolean;
  research_limit: number;
  chat_webhook_url: string | null;
  chat_webhook_disabled_at: Date | null;
  chat_webhook_disabled_reason: string | null;
  digest_enabled: boolean;
  digest_email: string | null;
  active: boolean;
  paused_reason: string | null;
  property_mappings: PropertyMapping[];
  re_enrich_after_days: number | null;
  crm_object: 'Contact' | 'Lead' | null;
}

export interface StoredCrmSettings extends CrmSettings {
  chatWebhookDisabled: { at: Date; reason: string } | null;
}

const fromRow = (row: SettingsRow): StoredCrmSettings => ({
  productId: row.product_id,
  accountId: row.account_id,
  cadence: row.cadence,
  hourUtc: row.hour_utc,
  scoreProperty: row.score_property,
  minScore: Number(row.min_score),
  skipFreeMail: row.skip_free_mail,
  skipRoleBased: row.skip_role_based,
  researchLimit: row.research_limit,
  chatWebhookUrl: row.chat_webhook_url,
  digestEnabled: row.digest_enabled,
  digestEmail: row.digest_email,
  active: row.active,
  pausedReason: row.paused_reason,
  propertyMappings: row.property_mappings ?? [],
  reEnrichAfterDays: row.re_enrich_after_days,
  crmObject: row.crm_object,
  chatWebhookDisabled: row.chat_webhook_disabled_at ? { at: new Date(row.chat_webhook_disabled_at), reason: row.chat_webhook_disabled_reason ?? '' } : null,
});

/** The defaults a product's form starts from before its first save (paused: nothing runs until someone turns it on). */
export function defaultCrmSettings(accountId: number, productId: number, defaultScoreField: string | null = CRM_DEFAULTS.scoreProperty): StoredCrmSettings {
  return {
    // A CRM without a default lead score (Pipedrive) starts with none chosen: the form asks for one.
    productId, accountId, cadence: CRM_DEFAULTS.cadence, hourUtc: CRM_DEFAULTS.hourUtc, scoreProperty: defaultScoreField ?? '', minScore: CRM_DEFAULTS.minScore,
    skipFreeMail: CRM_DEFAULTS.skipFreeMail, skipRoleBased: CRM_DEFAULTS.skipRoleBased, researchLimit: CRM_DEFAULTS.researchLimit, chatWebhookUrl: null,
    digestEnabled: CRM_DEFAULTS.digestEnabled, digestEmail: null, active: false, pausedReason: null, propertyMappings: [], reEnrichAfterDays: null, crmObject: null, chatWebhookDisabled: null,
  };
}

export async function getCrmSettings(em: EntityManager, productId: number): Promise<StoredCrmSettings | null> {
  const [row]: SettingsRow[] = await em.execute('select * from crm_integration where product_id = ?', [productId]);
  return row ? fromRow(row) : null;
}

export async function listAccountCrmSettings(em: EntityManager, accountId: number): Promise<StoredCrmSettings[]> {
  const rows: SettingsRow[] = await em.execute('select * from crm_integration where account_id = ? order by product_id', [accountId]);
  return rows.map(fromRow);
}

/**
 * Saves a product's settings. Turning it on clears the pause reason; a new
 * webhook URL clears a webhook disabled by its answers.
 */
export async function saveCrmSettings(em: EntityManager, accountId: number, productId: number, input: CrmSettingsInput, now: Date): Promise<StoredCrmSettings> {
  const [row]: SettingsRow[] = await em.execute(
    `insert into crm_integration (product_id, account_id, cadence, hour_utc, score_property, min_score, skip_free_mail, skip_role_based, research_limit,
       chat_webhook_url, digest_enabled, digest_email, active, paused_reason, property_mappings, re_enrich_after_days, crm_object, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (product_id) do update set cadence = excluded.cadence, hour_utc = excluded.hour_utc, score_property = excluded.score_property,
       min_score = excluded.min_score, skip_free_mail = excluded.skip_free_mail, skip_role_based = excluded.skip_role_based,
       research_limit = excluded.research_limit, digest_enabled = excluded.digest_enabled, digest_email = excluded.digest_email,
       property_mappings = excluded.property_mappings, re_enrich_after_days = excluded.re_enrich_after_days, crm_object = excluded.crm_object,
       chat_webhook_disabled_at = case when crm_integration.chat_webhook_url is distinct from excluded.chat_webhook_url then null else crm_integration.chat_webhook_disabled_at end,
       chat_webhook_disabled_reason = case when crm_integration.chat_webhook_url is distinct from excluded.chat_webhook_url then null else crm_integration.chat_webhook_disabled_reason end,
       chat_webhook_url = excluded.chat_webhook_url,
       active = excluded.active,
       paused_reason = case when excluded.active then null when crm_integration.active then null else crm_integration.paused_reason end,
       updated_at = excluded.updated_at
     where crm_integration.account_id = excluded.account_id
     returning *`,
    [
      productId, accountId, input.cadence, input.hourUtc, input.scoreProperty, input.minScore, input.skipFreeMail, input.skipRoleBased, input.researchLimit,
      input.chatWebhookUrl, input.digestEnabled, input.digestEmail, input.active, null, JSON.stringify(input.propertyMappings ?? []), input.reEnrichAfterDays ?? null, input.crmObject ?? null, now, now,
    ],
  );
  if (!row) throw new Error(`product ${productId} is not account ${accountId}'s`);
  return fromRow(row);
}

/** The webhook answered 403/404/410: no more posts until its URL changes. True when this call disabled it. */
export async function disableChatWebhook(em: EntityManager, productId: number, url: string, reason: string, now: Date): Promise<boolean> {
  const rows: unknown[] = await em.execute(
    'update crm_integration set chat_webhook_disabled_at = ?, chat_webhook_disabled_reason = ? where product_id = ? and chat_webhook_url = ? and chat_webhook_disabled_at is null returning product_id',
    [now, reason, productId, url],
  );
  return rows.length > 0;
}

export async function deleteCrmSettings(em: EntityManager, productId: number): Promise<void> {
  await em.execute('delete from crm_integration where product_id = ?', [productId]);
}
