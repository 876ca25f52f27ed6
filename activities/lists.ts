// The list run's own steps (workflows/list-run-workflow.ts); the rows' research
// goes through the shared fan-out's steps (activities/research-fanout.ts).
import type { Orm } from '../db/orm.ts';
import { listRunFinish, listRunPage } from '../services/lists/runs.ts';

export function createListActivities({ orm, clock }: { orm: Orm; clock: () => Date }) {
  return {
    listRunPage: (input: { listId: string; afterPosition: number; limit: number }) => listRunPage(orm.em.fork(), input),
    listRunFinish: (input: { listId: string; isOutOfCredits: boolean }) => listRunFinish(orm.em.fork(), input, clock()),
  };
}

export type ListActivities = ReturnType<typeof createListActivities>;
