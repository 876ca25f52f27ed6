import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { AppError } from '../../../domain/errors.ts';
import { LIST_ID_SHAPE } from '../../../domain/lists/lists.ts';
import { createListDraft, creditsLeftOf, deleteListDraft, startList, updateListDraft } from '../../../services/lists/lists.ts';
import { listDetail } from '../../../services/lists/reads.ts';
import { startListRunWorkflow } from '../../../services/lists/runs.ts';
import { accountOf, keyForProduct, type ToolContext } from '../context.ts';
import { ZGetListOutput, ZResearchListOutput } from '../schemas.ts';
import { asToolErrors, toolResult } from '../results.ts';

export const MAX_LIST_EMAILS = 100;
const ROWS_SHOWN = 100;

/** research_list and get_list (docs/mcp.md#tools): a List as the dashboard makes one (docs/lists.md). */
export function registerListTools(server: McpServer, { deps, caller }: ToolContext): void {
  server.registerTool(
    'research_list',
    {
      title: 'Research a list of prospects',
      description:
        'Researches up to 100 work e-mails as one List, as the dashboard\'s Lists page does. Each address is checked first; refused ones (invalid, duplicate, ' +
        'beyond the credits left) are returned with the reason. Each accepted row costs 1 credit as it starts. Use for many prospects at once; follow with get_list.',
      inputSchema: z.object({
        emails: z.array(z.string().max(320)).min(1).max(MAX_LIST_EMAILS).describe('Work e-mail addresses, at most 100'),
        product: z.string().max(200).optional().describe('A product id or name from get_account; default: the API key\'s product, or the account\'s only one'),
      }),
      outputSchema: ZResearchListOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ emails, product }) =>
      asToolErrors(deps.logger, async () => {
        const em = deps.orm.em.fork();
        const now = deps.clock();
        const key = await keyForProduct(em, caller, product);
        const account = await accountOf(em, caller);
        // One address a line, as pasted on the Lists page: the same parsing and checks of each address.
        const pasted = emails.map((email) => email.replace(/[\r\n]+/g, ' ')).join('\n');
        const draft = await createListDraft(em, account, { pasted, name: `From an AI agent (${emails.length} addresses)` }, now);
        const started = await updateListDraft(em, account, draft.id, { apiKeyId: key.keyId }, now)
          .then(() => startList(em.fork(), caller.accountId, draft.id, {}, now))
          .catch(async (error: unknown) => {
            // A list that cannot start (no credits, lists already running) is not left behind as a draft.
            await deleteListDraft(em.fork(), caller.accountId, draft.id);
            throw error;
          });
        await startListRunWorkflow({ temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue, deadlineMs: deps.config.researchDeadlineMs }, em.fork(), draft.id, now).catch(
          (error: unknown) => deps.logger.warn({ err: error, listId: draft.id }, 'list run not started yet; the relay will start it'),
        );
        const refused: Array<{ email: string; reason: string }> = await em.execute(
          `select coalesce(email, '') as email, coalesce(reason, 'Not run.') as reason from prospect_list_row where list_id = ? and status = 'skipped' order by position`,
          [draft.id],
        );
        return toolResult({
          list_id: draft.id,
          status: started.status,
          accepted: started.to_run,
          refused,
          credits_to_use: started.to_run,
          cost: { credits_charged: 0, credits_left: creditsLeftOf(await accountOf(em.fork(), caller), deps.clock()) },
        }, { next: `List ${draft.id} is running: call get_list with list_id "${draft.id}" for its progress and each row's research_id.` });
      }),
  );

  server.registerTool(
    'get_list',
    {
      title: 'Get a list\'s progress',
      description:
        'Reads a List started by research_list (or on the dashboard): its status, progress and each row with its research_id, status and error. ' +
        'Use to follow a list; read a row\'s result with get_research. Free.',
      inputSchema: z.object({ list_id: z.string().min(1).max(100).describe('The list_id research_list returned') }),
      outputSchema: ZGetListOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ list_id }) =>
      asToolErrors(deps.logger, async () => {
        if (!LIST_ID_SHAPE.test(list_id)) throw new AppError('not_found', 'No such list.', { field: 'list_id' });
        const em = deps.orm.em.fork();
        const detail = await listDetail(em, await accountOf(em, caller), list_id, deps.clock());
        return toolResult({
          list_id: detail.list.id,
          name: detail.list.name,
          status: detail.list.status,
          progress: { total: detail.progress.total, done: detail.progress.done, failed: detail.progress.failed, remaining: detail.progress.remaining, eta_seconds: detail.progress.etaSeconds },
          rows: detail.rows.slice(0, ROWS_SHOWN).map((row) => ({ email: row.email, status: row.status, research_id: row.researchId, error: row.error })),
        });
      }),
  );
}
