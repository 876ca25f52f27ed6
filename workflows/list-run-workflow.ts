import { continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ListActivities } from '../activities/lists.ts';
import type { ListRunInput } from '../domain/lists/lists.ts';
import { LIST_ITEMS_IN_FLIGHT } from '../domain/research/fanout.ts';
import { researchFanout } from './research-fanout.ts';
import { dbWrite } from './activity-profiles.ts';

/** A Cancel from the page: no further row is taken (the database says so too; this makes it prompt). */
export const cancelListSignal = defineSignal('cancelList');

/**
 * Rows per page. A page runs through the shared fan-out, then the run
 * continues as new with the next page (Temporal's batch sliding-window
 * sample): the history stays at a few thousand events whatever the list's size.
 */
const ROWS_PER_PAGE = 200;

const lists = proxyActivities<ListActivities>(dbWrite);

/**
 * One list run: the list's pending rows, a page at a time, through
 * the research fan-out shared with CRM runs (workflows/research-fanout.ts),
 * each row one research job and one credit (source `list`), then the list
 * ended as completed, cancelled or stopped for credits, with the rows never
 * started marked not charged. Workflow id: `list-run-<list id>`.
 */
export async function listRunWorkflow(input: ListRunInput): Promise<{ status: string }> {
  let isCancelled = false;
  setHandler(cancelListSignal, () => {
    isCancelled = true;
  });
  const rowsPerPage = input.rowsPerPage ?? ROWS_PER_PAGE;
  const page = await lists.listRunPage({ listId: input.listId, afterPosition: input.afterPosition ?? -1, limit: rowsPerPage });
  let isOutOfCredits = input.isOutOfCredits ?? false;
  if (page.owner && page.items.length > 0 && !isOutOfCredits) {
    const result = await researchFanout(
      page.owner,
      page.items,
      { inFlight: input.inFlight ?? LIST_ITEMS_IN_FLIGHT, researchTaskQueue: input.researchTaskQueue, deadlineMs: input.deadlineMs },
      { shouldStop: () => isCancelled },
    );
    isOutOfCredits = result.isOutOfCredits;
    const isLastPage = page.items.length < rowsPerPage || result.isStopped || isCancelled || isOutOfCredits;
    if (!isLastPage) {
      await continueAsNew<typeof listRunWorkflow>({ ...input, afterPosition: Number(page.items.at(-1)!.key), isOutOfCredits });
    }
  }
  return lists.listRunFinish({ listId: input.listId, isOutOfCredits });
}
