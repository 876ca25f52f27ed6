import type { EntityManager } from '@mikro-orm/postgresql';

/** Active endpoints in a failing streak: every attempt since `failing_since` failed (a success clears it; 3 days of it disables the endpoint). */
export async function failingEndpointCount(em: EntityManager): Promise<number> {
  const [row]: Array<{ n: number }> = await em.getConnection().execute(
    `select count(*)::int as n from webhook_endpoint where status = 'active' and failing_since is not null`,
  );
  return row?.n ?? 0;
}
