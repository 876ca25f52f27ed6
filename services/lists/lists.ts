import type { EntityManager } from '@mikro-orm/postgresql';
import type { IAccount } from '../../db/entities/account.ts';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { AppError, CREDIT_REFUSAL_MESSAGES } from '../../domain/errors.ts';
import {
  buildListPreview, decodeListFile, guessColumnMapping, isBlankRow, mappingError, parseListText, parsePastedAddresses,
  type ColumnMapping, type ListParse, type ListPreview, type ListPreviewRow, type ParsedList,
} from '../../domain/lists/csv.ts';
import { MAX_RUNNING_LISTS, type ListStatus, type ListSummary, type TListPatch } from '../../domain/lists/lists.ts';
import { PLANS, creditErrorCode } from '../../domain/billing/plans.ts';
import { MAX_HINT_LENGTH, type ResearchRequest } from '../../domain/research/request.ts';
import { shortText } from '../../domain/shown-text.ts';
import { customAlphabet } from 'nanoid';
import { lockAccount } from '../billing/credits.ts';
import { iso } from '../accounts/dashboard-keys.ts';

// Lists: a CSV or pasted addresses kept as a draft (parsed cells,
// column mapping, preview), then started: its rows written with what becomes
// of each, and its run workflow started (services/lists/runs.ts). Nothing is
// charged here: each row's credit is taken as the row starts.

export interface ListRow {
  id: string;
  account_id: number;
  api_key_id: number | null;
  product_id: number | null;
  name: string;
  status: ListStatus;
  headers: string[];
  cells: string[][];
  first_row_number: number;
  mapping: ColumnMapping;
  skip_flagged: boolean;
  to_run: number;
  stopped_reason: string | null;
  created_at: Date;
  started_at: Date | null;
  queued_at?: Date | null;
  workflow_started_at: Date | null;
  finished_at: Date | null;
}

export interface ListDraftReply extends ListSummary {
  headers: string[];
  mapping: ColumnMapping;
  skipFlagged: boolean;
  preview: ListPreview | null;
  mappingError: string | null;
  /** The first rows of the list, each cell cut to a readable length: what each column holds, beside its select. */
  sampleRows: string[][];
}

const listSuffix = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 24);
/** `lst_` + 24 base62 characters: unguessable, like research ids. */
export const newListId = () => `lst_${listSuffix()}`;

/** What the account can still spend in the current cycle (a cycle that has rolled over counts as fresh). */
export function creditsLeftOf(account: IAccount, now: Date): number {
  const cycle = billingCycleAt(account.billingAnchor, now);
  if (cycle.start.getTime() > account.cycleStart.getTime()) return PLANS[account.pendingPlan ?? account.plan].creditsPerCycle;
  return Math.max(0, account.creditLimit - account.creditsUsed);
}

/** A list of the account, or 404 as for an unknown id (another account's list is unknown here). */
export async function findList(em: EntityManager, accountId: number, listId: string, options: { forUpdate?: boolean } = {}): Promise<ListRow> {
  const [row]: ListRow[] = await em.execute(
    `select * from prospect_list where id = ? and account_id = ?${options.forUpdate ? ' for update' : ''}`,
    [listId, accountId],
  );
  if (!row) throw new AppError('not_found', 'No such list.');
  return row;
}

/** The account's first active key with a product: a new list's default. */
async function defaultKeyId(em: EntityManager, accountId: number): Promise<number | null> {
  const [row]: Array<{ id: number }> = await em.execute(
    'select id from api_key where account_id = ? and revoked_at is null and product_id is not null order by created_at, id limit 1',
    [accountId],
  );
  return row?.id ?? null;
}

function parseUpload(input: { bytes?: Uint8Array; pasted?: string }): ParsedList {
  let parsed: ListParse;
  if (input.pasted !== undefined) {
    parsed = parsePastedAddresses(input.pasted);
  } else {
    const decoded = decodeListFile(input.bytes ?? new Uint8Array());
    if (!decoded.ok) throw new AppError('list_file_invalid', decoded.error.message, { reason: decoded.error.code });
    parsed = parseListText(decoded.text);
  }
  if (!parsed.ok) throw new AppError('list_file_invalid', parsed.error.message, { reason: parsed.error.code });
  return parsed.list;
}

/** A new draft from an upload or pasted addresses; the columns guessed from the headers. */
export async function createListDraft(
  em: EntityManager,
  account: IAccount,
  input: { bytes?: Uint8Array; pasted?: string; name?: string },
  now: Date,
): Promise<ListDraftReply> {
  const list = parseUpload(input);
  const row: ListRow = {
    id: newListId(),
    account_id: account.id,
    api_key_id: await defaultKeyId(em, account.id),
    product_id: null,
    name: (input.name?.trim() || (input.pasted !== undefined ? 'Pasted addresses' : 'List')).slice(0, 200),
    status: 'draft',
    headers: list.headers,
    cells: list.rows,
    first_row_number: list.firstRowNumber,
    mapping: guessColumnMapping(list.headers, list.rows),
    skip_flagged: false,
    to_run: 0,
    stopped_reason: null,
    created_at: now,
    started_at: null,
    workflow_started_at: null,
    finished_at: null,
  };
  await em.execute(
    `insert into prospect_list (id, account_id, api_key_id, name, status, headers, cells, first_row_number, mapping, skip_flagged, created_at)
     values (?, ?, ?, ?, 'draft', ?::jsonb, ?::jsonb, ?, ?::jsonb, false, ?)`,
    [row.id, row.account_id, row.api_key_id, row.name, JSON.stringify(row.headers), JSON.stringify(row.cells), row.first_row_number, JSON.stringify(row.mapping), now],
  );
  return draftReply(row, creditsLeftOf(account, now));
}

async function assertUsableKey(em: EntityManager, accountId: number, keyId: number): Promise<number> {
  const [key]: Array<{ product_id: number | null }> = await em.execute(
    'select product_id from api_key where id = ? and account_id = ? and revoked_at is null',
    [keyId, accountId],
  );
  if (!key) throw new AppError('invalid_request', 'apiKeyId: No active key with this id.', { fields: { apiKeyId: 'No active key with this id.' } });
  if (key.product_id === null) throw new AppError('invalid_request', 'apiKeyId: This key has no product context.', { fields: { apiKeyId: 'This key has no product context.' } });
  return key.product_id;
}

/** Mapping, skip switch, key or name of a draft changed; the preview recomputed. */
export async function updateListDraft(em: EntityManager, account: IAccount, listId: string, patch: TListPatch, now: Date): Promise<ListDraftReply> {
  const list = await findList(em, account.id, listId);
  if (list.status !== 'draft') throw new AppError('list_not_draft', 'This list has started; its settings can no longer change.');
  if (patch.mapping) {
    for (const [field, index] of Object.entries(patch.mapping)) {
      if (index !== undefined && index >= list.headers.length) {
        throw new AppError('invalid_request', `mapping.${field}: The file has ${list.headers.length} columns.`, { fields: { [`mapping.${field}`]: `The file has ${list.headers.length} columns.` } });
      }
    }
    list.mapping = patch.mapping;
  }
  if (patch.apiKeyId !== undefined) {
    await assertUsableKey(em, account.id, patch.apiKeyId);
    list.api_key_id = patch.apiKeyId;
  }
  if (patch.skipFlagged !== undefined) list.skip_flagged = patch.skipFlagged;
  if (patch.name !== undefined) list.name = patch.name;
  await em.execute('update prospect_list set mapping = ?::jsonb, api_key_id = ?, skip_flagged = ?, name = ? where id = ?', [
    JSON.stringify(list.mapping), list.api_key_id, list.skip_flagged, list.name, list.id,
  ]);
  return draftReply(list, creditsLeftOf(account, now));
}

/** Drafts only: a started list is kept with its jobs. */
export async function deleteListDraft(em: EntityManager, accountId: number, listId: string): Promise<void> {
  const list = await findList(em, accountId, listId);
  if (list.status !== 'draft') throw new AppError('list_not_draft', 'Only a list that has not started can be deleted.');
  await em.execute('delete from prospect_list where id = ?', [listId]);
}

const parsedOf = (list: ListRow): ParsedList => ({ headers: list.headers, rows: list.cells, firstRowNumber: list.first_row_number });

const SAMPLE_ROWS = 3;

export function draftReply(list: ListRow, creditsLeft: number): ListDraftReply {
  const problem = mappingError(parsedOf(list), list.mapping);
  const preview = problem ? null : buildListPreview(parsedOf(list), list.mapping, { skipFlagged: list.skip_flagged, creditsLeft });
  return {
    ...summaryOf(list, { done: 0, failed: 0, notCharged: 0 }),
    headers: list.headers,
    mapping: list.mapping,
    skipFlagged: list.skip_flagged,
    preview,
    mappingError: problem?.message ?? null,
    sampleRows: list.cells
      .filter((cells) => !isBlankRow(cells))
      .slice(0, SAMPLE_ROWS)
      .map((cells) => cells.map((cell) => shortText(cell))),
  };
}

export function summaryOf(list: ListRow, counts: { done: number; failed: number; notCharged: number }, queuePlace: number | null = null): ListSummary {
  return {
    id: list.id,
    name: list.name,
    status: list.status,
    apiKeyId: list.api_key_id,
    createdAt: iso(list.created_at)!,
    startedAt: iso(list.started_at),
    finishedAt: iso(list.finished_at),
    counts: { total: list.cells.filter((cells) => !isBlankRow(cells)).length, toRun: list.to_run, ...counts },
    stoppedReason: list.stopped_reason,
    queuePlace: list.status === 'queued' ? queuePlace : null,
  };
}

/** The research request of a preview row, as the pipeline takes it (the API's hint limits applied). */
export function requestOf(row: ListPreviewRow): ResearchRequest | null {
  if (!row.request) return null;
  const hint = (value: string | undefined) => {
    // eslint-disable-next-line no-control-regex
    const cleaned = value?.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim().slice(0, MAX_HINT_LENGTH);
    return cleaned ? cleaned : undefined;
  };
  const request: ResearchRequest = { email: row.request.email };
  const prospectName = hint(row.request.prospect_name);
  const companyName = hint(row.request.company_name);
  const socialUrl = hint(row.request.social_url);
  const companySocialUrl = hint(row.request.company_social_url);
  if (prospectName) request.prospectName = prospectName;
  if (companyName) request.companyName = companyName;
  if (socialUrl) request.socialUrl = socialUrl;
  if (companySocialUrl) request.companySocialUrl = companySocialUrl;
  return request;
}

/** Why a row is not researched, as the page and the CSV say it. */
function skipReason(row: ListPreviewRow, skipFlagged: boolean): string {
  if (row.verdict === 'invalid') return `Invalid address${row.reason ? `: ${row.reason}` : ''}.`;
  if (row.verdict === 'duplicate') return `Duplicate${row.reason ? ` (${row.reason})` : ''}.`;
  if (skipFlagged && row.verdict === 'free_mail') return 'Skipped: free-mail address.';
  if (skipFlagged && row.verdict === 'role_based') return 'Skipped: role-based mailbox.';
  return 'Not run: beyond the credits left when the list started.';
}

/**
 * Starts a draft: under the account's lock (as credits are taken), the limits
 * checked (a key with a product, an e-mail column, at least one row and one
 * credit), the rows written (those that fit the credits left `pending`, the
 * rest `skipped` with the reason), and the list `running` with the intent to
 * start its workflow recorded (`workflow_started_at` null); the caller starts
 * the workflow after the commit. When the account already runs its plan's
 * number of lists, or has lists waiting, the list is `queued` behind them.
 */
export async function startList(
  em: EntityManager,
  accountId: number,
  listId: string,
  options: { expectedRows?: number },
  now: Date,
): Promise<ListRow> {
  return em.transactional(async (tx) => {
    const account = await lockAccount(tx, accountId, now);
    const list = await findList(tx, accountId, listId, { forUpdate: true });
    if (list.status !== 'draft') throw new AppError('list_not_draft', 'This list has already started.');
    const [{ running }]: Array<{ running: number }> = await tx.execute(
      `select count(*)::int as running from prospect_list where account_id = ? and status in ('running', 'cancelling')`,
      [accountId],
    );
    // Beyond the plan's number running at once, the list waits its turn with its rows
    // written (services/lists/queue.ts), rather than being refused.
    const [{ queued }]: Array<{ queued: number }> = await tx.execute(
      `select count(*)::int as queued from prospect_list where account_id = ? and status = 'queued'`,
      [accountId],
    );
    const isQueued = running >= MAX_RUNNING_LISTS[account.plan] || queued > 0;
    if (list.api_key_id === null) throw new AppError('api_key_required', 'Choose the API key whose product context the research is for (create one on the API keys page).');
    const productId = await assertUsableKey(tx, accountId, list.api_key_id).catch(() => {
      throw new AppError('api_key_required', 'The chosen key is revoked or has no product context: choose another key.');
    });
    const problem = mappingError(parsedOf(list), list.mapping);
    if (problem) throw new AppError('list_no_email_column', problem.message);
    const creditsLeft = Math.max(0, account.creditLimit - account.creditsUsed);
    if (creditsLeft === 0) {
      const code = creditErrorCode(account.plan);
      throw new AppError(code, CREDIT_REFUSAL_MESSAGES[code], { used: account.creditsUsed, limit: account.creditLimit });
    }
    const preview = buildListPreview(parsedOf(list), list.mapping, { skipFlagged: list.skip_flagged, creditsLeft });
    if (preview.willRun === 0) throw new AppError('list_nothing_to_run', 'No row of this list can be researched: no valid address is left to run.');
    if (options.expectedRows !== undefined && preview.willRun < options.expectedRows) {
      throw new AppError('list_credits_changed', `Only ${preview.willRun} rows fit the ${creditsLeft} credits left now (the page said ${options.expectedRows}). Check the preview and start again.`, { willRun: preview.willRun, creditsLeft });
    }
    const rows = preview.rows.map((row) => {
      const willRun = row.willRun;
      return {
        // The row's place among the stored cells, blank lines included (the downloads read them by it).
        position: row.rowNumber - list.first_row_number,
        row_number: row.rowNumber,
        email: row.email,
        request: willRun ? requestOf(row) : null,
        status: willRun ? 'pending' : 'skipped',
        reason: willRun ? null : skipReason(row, list.skip_flagged),
      };
    });
    await tx.execute(
      `insert into prospect_list_row (list_id, position, row_number, email, request, status, reason)
       select ?, x.position, x.row_number, x.email, x.request, x.status, x.reason
       from jsonb_to_recordset(?::jsonb) as x(position int, row_number int, email text, request jsonb, status text, reason text)`,
      [list.id, JSON.stringify(rows)],
    );
    const toRun = rows.filter((row) => row.status === 'pending').length;
    if (isQueued) {
      await tx.execute(`update prospect_list set status = 'queued', queued_at = ?, to_run = ?, product_id = ? where id = ?`, [now, toRun, productId, list.id]);
      return { ...list, status: 'queued', queued_at: now, to_run: toRun, product_id: productId };
    }
    await tx.execute(`update prospect_list set status = 'running', started_at = ?, to_run = ?, product_id = ? where id = ?`, [now, toRun, productId, list.id]);
    return { ...list, status: 'running', started_at: now, to_run: toRun, product_id: productId };
  });
}

/**
 * A Cancel: the list becomes `cancelling` under the account's lock, which the
 * fan-out's step also takes before it records a row's job, so no row is
 * charged after this commits. Rows in flight finish (and are paid for); the
 * run marks the rest not charged and ends the list `cancelled`. A queued
 * list has not begun: it ends `cancelled` at once, no row charged.
 */
export async function requestListCancel(em: EntityManager, accountId: number, listId: string, now: Date): Promise<ListRow> {
  return em.transactional(async (tx) => {
    await lockAccount(tx, accountId, now);
    const list = await findList(tx, accountId, listId, { forUpdate: true });
    if (list.status === 'cancelling') return list;
    if (list.status === 'queued') {
      // Not begun: ends at once, none of its rows charged.
      await tx.execute(`update prospect_list_row set status = 'not_charged' where list_id = ? and status = 'pending'`, [list.id]);
      await tx.execute(`update prospect_list set status = 'cancelled', stopped_reason = 'cancelled', finished_at = ? where id = ?`, [now, list.id]);
      return { ...list, status: 'cancelled', stopped_reason: 'cancelled', finished_at: now };
    }
    if (list.status !== 'running') throw new AppError('list_not_running', list.status === 'draft' ? 'This list has not started: delete it instead.' : 'This list has already ended.');
    await tx.execute(`update prospect_list set status = 'cancelling', stopped_reason = 'cancelled' where id = ?`, [list.id]);
    return { ...list, status: 'cancelling', stopped_reason: 'cancelled' };
  });
}
