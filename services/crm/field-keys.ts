// Our fields' keys where the CRM chooses them (Pipedrive's hash keys), kept
// per connection and product: a reconnection to another company starts over,
// one to the same company finds them again.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CrmConnectionRef, OwnFieldKeyStore } from '../../integrations/crm/adapter.ts';

export function crmFieldKeyStore(em: () => EntityManager, connection: CrmConnectionRef): OwnFieldKeyStore {
  const where = [connection.accountId, connection.provider, connection.portalId];
  return {
    async get(productId) {
      const [row]: Array<{ keys: Record<string, string> }> = await em().execute(
        'select keys from crm_field_key where account_id = ? and provider = ? and portal_id = ? and product_id = ?',
        [...where, productId],
      );
      return row?.keys ?? null;
    },
    async save(productId, keys) {
      await em().execute(
        `insert into crm_field_key (account_id, provider, portal_id, product_id, keys) values (?, ?, ?, ?, ?)
         on conflict (account_id, provider, portal_id, product_id) do update set keys = crm_field_key.keys || excluded.keys`,
        [...where, productId, JSON.stringify(keys)],
      );
    },
  };
}
