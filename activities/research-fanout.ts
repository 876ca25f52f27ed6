// The steps of the shared research fan-out (workflows/research-fanout.ts),
// registered on the research task queue: CRM and list runs schedule them there.
import type { Orm } from '../db/orm.ts';
import type { FanoutItem, FanoutJobRecord, FanoutOwner } from '../domain/research/fanout.ts';
import { fanoutJobEnd, recordFanoutJob } from '../services/research/fanout.ts';

export interface FanoutDeps {
  orm: Orm;
  clock: () => Date;
  /** Base address of the dashboard: a usage alert's upgrade link (services/billing/usage-alerts.ts). */
  publicUrl?: string;
}

export function createFanoutActivities({ orm, clock, publicUrl }: FanoutDeps) {
  return {
    fanoutRecordJob: (owner: FanoutOwner, item: FanoutItem): Promise<FanoutJobRecord> =>
      recordFanoutJob(orm.em.fork(), owner, item, clock(), { publicUrl: publicUrl ?? '' }),
    fanoutJobEnd: (researchId: string) => fanoutJobEnd(orm.em.fork(), researchId),
  };
}

export type FanoutActivities = ReturnType<typeof createFanoutActivities>;
