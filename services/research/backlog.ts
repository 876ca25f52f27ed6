import type { EntityManager } from '@mikro-orm/postgresql';

/** Seconds since the oldest still-`queued` job was submitted, 0 when none waits (research_job_running_idx serves it). */
export async function oldestQueuedAgeSeconds(em: EntityManager, now: Date): Promise<number> {
  const [row]: Array<{ oldest: Date | null }> = await em.getConnection().execute(`select min(submitted_at) as oldest from research_job where status = 'queued'`);
  return row?.oldest ? Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000) : 0;
}
