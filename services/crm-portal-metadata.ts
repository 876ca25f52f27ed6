// What the CRM page reads of the connected portal, read from HubSpot once
// and kept in PostgreSQL (every API process shares it), read again only when
// the owner asks (docs/crm.md#settings). The page's live progress comes from
// our own records, so an open page spends none of the portal's HubSpot budget.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ScoreProperty } from '../integrations/hubspot/score-properties.ts';

export interface PortalScoreProperties {
  portalId: number;
  properties: ScoreProperty[];
  /** When they were read from HubSpot. */
  readAt: Date;
}

/**
 * The portal's lead-score candidates: the stored ones for this portal, else
 * (none stored, another portal's, or `refresh`) read with `read` and stored.
 */
export async function portalScoreProperties(
  em: EntityManager,
  input: { accountId: number; portalId: number; refresh?: boolean; now: Date },
  read: () => Promise<ScoreProperty[]>,
): Promise<PortalScoreProperties> {
  if (!input.refresh) {
    const [stored]: Array<{ score_properties: ScoreProperty[]; read_at: Date }> = await em.execute(
      'select score_properties, read_at from crm_portal_metadata where account_id = ? and portal_id = ?',
      [input.accountId, input.portalId],
    );
    if (stored) return { portalId: input.portalId, properties: stored.score_properties, readAt: new Date(stored.read_at) };
  }
  const properties = await read();
  await em.execute(
    `insert into crm_portal_metadata (account_id, portal_id, score_properties, read_at) values (?, ?, ?, ?)
     on conflict (account_id) do update set portal_id = excluded.portal_id, score_properties = excluded.score_properties, read_at = excluded.read_at`,
    [input.accountId, input.portalId, JSON.stringify(properties), input.now],
  );
  return { portalId: input.portalId, properties, readAt: input.now };
}
