// What the CRM page reads of the connected portal, read from the CRM once
// and kept in PostgreSQL (every API process shares it), read again only when
// the owner asks (docs/crm.md#settings). The page's live progress comes from
// our own records, so an open page spends none of the portal's budget.
// One read gives both what can be a lead score and what a write-rule
// mapping can write (docs/crm.md#write-rules).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MappableProperty } from '../../domain/crm/write-rules.ts';
import type { CrmAdapter, CrmProvider, ScoreField } from '../../integrations/crm/adapter.ts';

export interface PortalProperties {
  portalId: string;
  scoreProperties: ScoreField[];
  mappableProperties: MappableProperty[];
  /** When they were read from the CRM. */
  readAt: Date;
}

/**
 * The portal's lead-score candidates and mappable properties: the stored
 * ones for this portal, else (none stored, another portal's, stored before
 * mappable properties were kept, or `refresh`) read with `read` and stored.
 */
export async function portalProperties(
  em: EntityManager,
  input: { accountId: number; provider: CrmProvider; portalId: string; refresh?: boolean; now: Date },
  read: () => Promise<Awaited<ReturnType<CrmAdapter['fieldMetadata']>>>,
): Promise<PortalProperties> {
  if (!input.refresh) {
    const [stored]: Array<{ score_properties: ScoreField[]; mappable_properties: MappableProperty[] | null; read_at: Date }> = await em.execute(
      'select score_properties, mappable_properties, read_at from crm_portal_metadata where account_id = ? and provider = ? and portal_id = ?',
      [input.accountId, input.provider, input.portalId],
    );
    if (stored?.mappable_properties) {
      return { portalId: input.portalId, scoreProperties: stored.score_properties, mappableProperties: stored.mappable_properties, readAt: new Date(stored.read_at) };
    }
  }
  const { scoreFields: scoreProperties, mappableFields: mappableProperties } = await read();
  await em.execute(
    `insert into crm_portal_metadata (account_id, provider, portal_id, score_properties, mappable_properties, read_at) values (?, ?, ?, ?, ?, ?)
     on conflict (account_id) do update set provider = excluded.provider, portal_id = excluded.portal_id, score_properties = excluded.score_properties,
       mappable_properties = excluded.mappable_properties, read_at = excluded.read_at`,
    [input.accountId, input.provider, input.portalId, JSON.stringify(scoreProperties), JSON.stringify(mappableProperties), input.now],
  );
  return { portalId: input.portalId, scoreProperties, mappableProperties, readAt: input.now };
}

/** The mappable properties as last read for this portal (a run's write rules go by them); none stored: empty. */
export async function storedMappableProperties(em: EntityManager, accountId: number, portalId: string | number): Promise<MappableProperty[]> {
  const [stored]: Array<{ mappable_properties: MappableProperty[] | null }> = await em.execute(
    'select mappable_properties from crm_portal_metadata where account_id = ? and portal_id = ?',
    [accountId, portalId],
  );
  return stored?.mappable_properties ?? [];
}
