import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../../../domain/errors.ts';
import { LIST_MAX_BYTES } from '../../../domain/lists/csv.ts';
import { LIST_ID_SHAPE, ZListPatch, ZListStart, ZPastedList, listRunWorkflowId } from '../../../domain/lists/lists.ts';
import type { Logger } from '../../../lib/logger.ts';
import { listDetail, listLists, listResultsCsv, listResultsJsonl } from '../../../services/lists/reads.ts';
import { startListRunWorkflow, type ListRunStarts } from '../../../services/lists/runs.ts';
import { queuePlaces } from '../../../services/lists/queue.ts';
import { createListDraft, deleteListDraft, requestListCancel, startList, summaryOf, updateListDraft } from '../../../services/lists/lists.ts';
import { refuseNulCharacters } from '../../nul-characters.ts';
import { readJsonBody } from '../../read-json-body.ts';
import { parseBody, parseWith, type DashboardState } from '../guard.ts';

export interface ListsRouterDeps {
  temporal: Client;
  clock: () => Date;
  logger: Logger;
  /** Where list runs start (the research task queue) and the jobs' deadline. */
  lists: Omit<ListRunStarts, 'temporal'>;
}

const listIdOf = (ctx: Context & { params: Record<string, string> }) => {
  const id = ctx.params.id ?? '';
  if (!LIST_ID_SHAPE.test(id)) throw new AppError('not_found', 'No such list.');
  return id;
};

/**
 * The upload: the file's own bytes (text/csv, octet-stream; up to 2 MiB), or
 * JSON with pasted addresses (the API's 64 KiB JSON limit: 1,000 addresses fit).
 */
async function readUpload(ctx: Context): Promise<{ bytes?: Uint8Array; pasted?: string; name?: string }> {
  const type = ctx.get('content-type');
  if (/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
    const body = await readJsonBody(ctx);
    if (body === undefined) throw new AppError('invalid_request', 'Send the CSV file itself, or JSON {"pasted": "…"} with one address per line.');
    return parseWith(ZPastedList, body);
  }
  let bytes: Buffer;
  try {
    bytes = await getRawBody(ctx.req, { limit: LIST_MAX_BYTES, length: ctx.get('content-length') || undefined });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      ctx.set('Connection', 'close');
      throw new AppError('payload_too_large', 'The file is over 2 MiB; a list can be at most 2 MiB. Split it into smaller files.');
    }
    throw new AppError('invalid_request', 'The upload could not be read.');
  }
  refuseNulCharacters({ name: ctx.query.name });
  const name = typeof ctx.query.name === 'string' ? ctx.query.name.replace(/\.(csv|txt)$/i, '').trim().slice(0, 200) : undefined;
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), name: name || undefined };
}

/** Lists (docs/lists.md): thin, as every dashboard router. */
export function listsRouter(deps: ListsRouterDeps): Router<DashboardState> {
  const router = new Router<DashboardState>();
  const starts: ListRunStarts = { temporal: deps.temporal, ...deps.lists };

  router.get('/lists', async (ctx) => {
    ctx.body = await listLists(ctx.state.em, ctx.state.account, deps.clock());
  });

  router.post('/lists', async (ctx) => {
    const upload = await readUpload(ctx);
    ctx.status = 201;
    ctx.body = { list: await createListDraft(ctx.state.em, ctx.state.account, upload, deps.clock()) };
  });

  router.get('/lists/:id', async (ctx) => {
    ctx.body = await listDetail(ctx.state.em, ctx.state.account, listIdOf(ctx), deps.clock());
  });

  router.patch('/lists/:id', async (ctx) => {
    const id = listIdOf(ctx);
    const patch = await parseBody(ctx, ZListPatch);
    ctx.body = { list: await updateListDraft(ctx.state.em, ctx.state.account, id, patch, deps.clock()) };
  });

  router.delete('/lists/:id', async (ctx) => {
    await deleteListDraft(ctx.state.em, ctx.state.account.id, listIdOf(ctx));
    ctx.status = 204;
  });

  router.post('/lists/:id/start', async (ctx) => {
    const id = listIdOf(ctx);
    const options = ctx.is('json') ? await parseBody(ctx, ZListStart) : {};
    const list = await startList(ctx.state.em.fork(), ctx.state.account.id, id, options, deps.clock());
    // Committed: the list runs whatever happens next. A start missed here (Temporal
    // unreachable, this process ending) is made by the worker's list relay, which
    // also starts a queued list when its turn comes.
    if (list.status === 'running') {
      await startListRunWorkflow(starts, ctx.state.em.fork(), id, deps.clock()).catch((error: unknown) =>
        deps.logger.warn({ err: error, listId: id }, 'list run not started yet; the relay will start it'),
      );
    }
    const place = list.status === 'queued' ? ((await queuePlaces(ctx.state.em.fork(), ctx.state.account.id)).get(id) ?? null) : null;
    ctx.status = 202;
    ctx.body = { list: summaryOf(list, { done: 0, failed: 0, notCharged: 0 }, place) };
  });

  router.post('/lists/:id/cancel', async (ctx) => {
    const id = listIdOf(ctx);
    const list = await requestListCancel(ctx.state.em.fork(), ctx.state.account.id, id, deps.clock());
    // Prompt, not needed: the run's next row finds the list cancelling in the database.
    await deps.temporal.workflow.getHandle(listRunWorkflowId(id)).signal('cancelList').catch(() => undefined);
    ctx.status = 202;
    ctx.body = { list: summaryOf(list, { done: 0, failed: 0, notCharged: 0 }) };
  });

  router.get('/lists/:id/results.csv', async (ctx) => {
    const { name, body } = await listResultsCsv(ctx.state.em, ctx.state.account, listIdOf(ctx), deps.clock());
    ctx.type = 'text/csv; charset=utf-8';
    ctx.attachment(`${name}-results.csv`);
    ctx.body = body;
  });

  router.get('/lists/:id/results.jsonl', async (ctx) => {
    const { name, body } = await listResultsJsonl(ctx.state.em, ctx.state.account, listIdOf(ctx), deps.clock());
    ctx.type = 'application/x-ndjson; charset=utf-8';
    ctx.attachment(`${name}-results.jsonl`);
    ctx.body = body;
  });

  return router;
}
