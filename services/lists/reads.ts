import type { EntityManager } from '@mikro-orm/postgresql';
import type { IAccount } from '../../db/entities/account.ts';
import { shownEmail } from '../../domain/research/email-address.ts';
import { isBlankRow } from '../../domain/lists/fields.ts';
import { csvDelimiterFor, formatListResultsCsv, type ListResultRow } from '../../domain/lists/results-csv.ts';
import { MAX_RUNNING_LISTS, isListRunning, type ListLimits, type ListProgress, type ListQueueWait, type ListRowReply, type ListRowStatus, type ListSummary } from '../../domain/lists/lists.ts';
import { listSecondsLeft } from '../../domain/lists/time-left.ts';
import { queueWait } from '../../domain/lists/queue-wait.ts';
import { LIST_ITEMS_IN_FLIGHT } from '../../domain/research/fanout.ts';
import { iso } from '../accounts/dashboard-keys.ts';
import { medianCompletionSeconds, remainingSeconds } from '../research/estimates.ts';
import { queuePlaces } from './queue.ts';
import { creditsLeftOf, draftReply, findList, summaryOf, type ListDraftReply, type ListRow } from './lists.ts';

// What the Lists page and the downloads read. A started row's
// state is its research job's (one source of truth); a row whose job the
// retention purge deleted shows as ended without its research.

interface RowState {
  position: number;
  row_number: number;
  email: string | null;
  status: 'skipped' | 'pending' | 'started' | 'not_charged';
  reason: string | null;
  research_id: string | null;
  job_status: string | null;
  job_error: string | null;
  submitted_at: Date | null;
  completed_at: Date | null;
  completed_reply: string | null;
}

function rowStatus(row: RowState): ListRowStatus {
  if (row.status !== 'started') return row.status;
  if (row.job_status === 'queued' || row.job_status === 'processing') return 'running';
  if (row.job_status === 'completed') return 'completed';
  return 'failed';
}

function rowError(row: RowState): string | null {
  if (row.status === 'skipped') return row.reason;
  if (row.status === 'not_charged') return 'Not started: the list was cancelled or ran out of credits; not charged.';
  if (row.status === 'started' && row.job_status === null) return 'The research job is no longer kept (retention).';
  if (row.job_status === 'failed') return row.job_error === 'timeout' ? 'The research took longer than 3 minutes (credit refunded).' : 'The research failed (credit refunded).';
  return null;
}

async function rowStates(em: EntityManager, listId: string, options: { withReplies: boolean }): Promise<RowState[]> {
  return em.execute(
    `select r.position, r.row_number, r.email, r.status, r.reason, r.research_id,
            j.status as job_status, j.error as job_error, j.submitted_at, j.completed_at${options.withReplies ? ', j.completed_reply' : ', null as completed_reply'}
     from prospect_list_row r left join research_job j on j.id = r.research_id
     where r.list_id = ? order by r.position`,
    [listId],
  );
}

const countsOf = (rows: RowState[]) => {
  const statuses = rows.map(rowStatus);
  return {
    done: statuses.filter((status) => status === 'completed').length,
    failed: statuses.filter((status) => status === 'failed').length,
    notCharged: statuses.filter((status) => status === 'not_charged').length,
    remaining: statuses.filter((status) => status === 'pending' || status === 'running').length,
  };
};

/** The account's lists, newest first, and how many more may run at once. */
export async function listLists(em: EntityManager, account: IAccount, now: Date): Promise<{ lists: ListSummary[]; limits: ListLimits }> {
  // `total` counts the rows of a list: a blank line (every cell empty, as cells are stored trimmed) is none (`isBlankRow`).
  const lists: Array<ListRow & { done: number; failed: number; not_charged: number; total: number }> = await em.execute(
    `select l.id, l.account_id, l.api_key_id, l.product_id, l.name, l.status, l.first_row_number, l.mapping, l.skip_flagged, l.to_run,
            l.stopped_reason, l.created_at, l.started_at, l.queued_at, l.workflow_started_at, l.finished_at,
            (select count(*) from jsonb_array_elements(l.cells) as cell_row
              where exists (select 1 from jsonb_array_elements_text(cell_row) as cell where cell <> ''))::int as total,
            count(*) filter (where j.status = 'completed')::int as done,
            count(*) filter (where j.status = 'failed' or (r.status = 'started' and j.id is null))::int as failed,
            count(*) filter (where r.status = 'not_charged')::int as not_charged
     from prospect_list l
     left join prospect_list_row r on r.list_id = l.id
     left join research_job j on j.id = r.research_id
     where l.account_id = ?
     group by l.id
     order by l.created_at desc, l.id desc
     limit 200`,
    [account.id],
  );
  const places = await queuePlaces(em, account.id);
  const summaries = lists.map((list) => {
    const summary = summaryOf({ ...list, headers: [], cells: [] }, { done: list.done, failed: list.failed, notCharged: list.not_charged }, places.get(list.id) ?? null);
    return { ...summary, counts: { ...summary.counts, total: list.total } };
  });
  return {
    lists: summaries,
    limits: {
      running: lists.filter((list) => isListRunning(list.status)).length,
      queued: places.size,
      maxRunning: MAX_RUNNING_LISTS[account.plan],
      plan: account.plan,
      creditsLeft: creditsLeftOf(account, now),
    },
  };
}

export interface ListDetail {
  list: ListDraftReply | ListSummary;
  progress: ListProgress;
  rows: ListRowReply[];
  /** While queued: the account's rows ahead of it and when it should start (domain/lists/queue-wait.ts). */
  queue: ListQueueWait | null;
}

/** A list with its progress and rows; the time left from the list's own finished rows (domain/lists/time-left.ts). */
export async function listDetail(em: EntityManager, account: IAccount, listId: string, now: Date): Promise<ListDetail> {
  const list = await findList(em, account.id, listId);
  if (list.status === 'draft') {
    return { list: draftReply(list, creditsLeftOf(account, now)), progress: { total: 0, done: 0, failed: 0, notCharged: 0, remaining: 0, etaSeconds: null }, rows: [], queue: null };
  }
  const rows = await rowStates(em, listId, { withReplies: false });
  const counts = countsOf(rows);
  const progress: ListProgress = { total: list.to_run, ...counts, etaSeconds: null };
  if (isListRunning(list.status) && counts.remaining > 0) {
    const seconds = (from: Date, to: Date) => (new Date(to).getTime() - new Date(from).getTime()) / 1000;
    progress.etaSeconds = listSecondsLeft({
      finishedSeconds: rows.filter((row) => row.completed_at && row.submitted_at).map((row) => seconds(row.submitted_at!, row.completed_at!)),
      runningSeconds: rows.filter((row) => rowStatus(row) === 'running' && row.submitted_at).map((row) => seconds(row.submitted_at!, now)),
      waiting: rows.filter((row) => row.status === 'pending').length,
      inFlight: LIST_ITEMS_IN_FLIGHT,
    });
  }
  const queue = list.status === 'queued' ? await queuedListWait(em, account, listId) : null;
  return {
    list: summaryOf(list, counts, queue?.place ?? null),
    queue,
    progress,
    rows: rows
      .filter((row) => row.status !== 'skipped')
      .map((row) => ({
        rowNumber: row.row_number,
        email: row.email,
        shownEmail: row.email === null ? null : shownEmail(row.email),
        status: rowStatus(row),
        researchId: row.research_id,
        error: rowError(row),
        finishedAt: row.status === 'started' ? iso(row.completed_at) : null,
      })),
  };
}

/** Where a queued list stands: its place, the account's rows ahead of it, and when it should start. */
async function queuedListWait(em: EntityManager, account: IAccount, listId: string): Promise<ListQueueWait | null> {
  const lists: Array<{ id: string; status: string; rows_left: number }> = await em.execute(
    `select l.id, l.status, count(r.position) filter (where r.status = 'pending' or (r.status = 'started' and j.status in ('queued', 'processing')))::int as rows_left
     from prospect_list l
     left join prospect_list_row r on r.list_id = l.id
     left join research_job j on j.id = r.research_id
     where l.account_id = ? and l.status in ('running', 'cancelling', 'queued')
     group by l.id, l.status, l.queued_at order by l.queued_at nulls first, l.id`,
    [account.id],
  );
  const place = lists.filter((list) => list.status === 'queued').findIndex((list) => list.id === listId) + 1;
  if (place === 0) return null;
  const wait = queueWait({
    runningRowsLeft: lists.filter((list) => list.status !== 'queued').map((list) => list.rows_left),
    aheadRows: lists.filter((list) => list.status === 'queued').slice(0, place - 1).map((list) => list.rows_left),
    maxRunning: MAX_RUNNING_LISTS[account.plan],
    inFlight: LIST_ITEMS_IN_FLIGHT,
    perRowSeconds: await medianCompletionSeconds(em, account.id),
  });
  return { place, ...wait };
}

/** The status reply of a job as `GET /research-status/{id}` answers it (api/research-status.ts). */
function statusReply(row: RowState, median: number, now: Date): string | null {
  if (!row.research_id || !row.job_status) return null;
  if (row.job_status === 'completed') return row.completed_reply;
  if (row.job_status === 'failed') return JSON.stringify({ research_id: row.research_id, status: 'failed', error: row.job_error === 'timeout' ? 'timeout' : 'internal_error' });
  return JSON.stringify({ research_id: row.research_id, status: row.job_status, estimated_seconds: remainingSeconds(median, new Date(row.submitted_at!), now) });
}

/** JSON Lines: one line per row whose job is kept, its status reply exactly as the API serves it. */
export async function listResultsJsonl(em: EntityManager, account: IAccount, listId: string, now: Date): Promise<{ name: string; body: string }> {
  const list = await findList(em, account.id, listId);
  const rows = await rowStates(em, listId, { withReplies: true });
  const median = await medianCompletionSeconds(em, account.id);
  const lines = rows.map((row) => statusReply(row, median, now)).filter((line): line is string => line !== null);
  return { name: list.name, body: lines.map((line) => `${line}\n`).join('') };
}

/** The results CSV (domain/lists/results-csv.ts): every row of the list (blank lines left out), then its research. */
export async function listResultsCsv(em: EntityManager, account: IAccount, listId: string, now: Date): Promise<{ name: string; body: string }> {
  const list = await findList(em, account.id, listId);
  const rows = list.status === 'draft' ? [] : await rowStates(em, listId, { withReplies: true });
  const median = await medianCompletionSeconds(em, account.id);
  const byPosition = new Map(rows.map((row) => [row.position, row]));
  const results: ListResultRow[] = list.cells.flatMap((cells, position): ListResultRow[] => {
    const row = byPosition.get(position);
    // A list started before blank lines were skipped has a row for each; it stays in its download.
    if (!row && isBlankRow(cells)) return [];
    if (!row) return [{ cells, status: 'pending', error: list.status === 'draft' ? 'The list has not started.' : null, reply: null }];
    const reply = statusReply(row, median, now);
    return [{ cells, status: rowStatus(row), error: rowError(row), reply: reply ? (JSON.parse(reply) as Record<string, unknown>) : null }];
  });
  return { name: list.name, body: formatListResultsCsv({ headers: list.headers, rows: results, delimiter: csvDelimiterFor(account.language) }) };
}
