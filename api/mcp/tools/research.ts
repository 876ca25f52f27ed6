import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { AppError } from '../../../domain/errors.ts';
import { ZResearchRequestBody } from '../../../domain/research/request.ts';
import { RESEARCH_JOB_STATUSES } from '../../../domain/research/job-status.ts';
import type { StatusReply } from '../../../domain/research/reply.ts';
import { normaliseEmail } from '../../../domain/research/email-address.ts';
import { creditsChargedFor } from '../../../services/billing/credits.ts';
import { findJobStatus } from '../../../services/research/job-status.ts';
import { listJobs } from '../../../services/research/dashboard-jobs.ts';
import { parseResearchRequest } from '../../research-request-parser.ts';
import { researchStatus } from '../../research-status.ts';
import { submitAndStartResearch } from '../../research-submission.ts';
import { accountOf, creditsLeft, keyForProduct, type ToolContext } from '../context.ts';
import { ZGetResearchOutput, ZListResearchOutput, ZResearchProspectOutput } from '../schemas.ts';
import { asToolErrors, researchUri, toolError, toolResult } from '../results.ts';
import { summarise } from '../summary.ts';
import { waitWithProgress } from '../waiting.ts';

const PAGE_SIZE = 20;
const ZProduct = z.string().max(200).optional().describe('A product id or name from get_account; default: the API key\'s product, or the account\'s only one');

/** research_prospect, get_research, list_research and the resource research://{research_id} (docs/mcp.md#tools). */
export function registerResearchTools(server: McpServer, { deps, caller }: ToolContext): void {
  server.registerTool(
    'research_prospect',
    {
      title: 'Research a prospect',
      description:
        'Researches a prospect by work e-mail: person, company, decision makers, recent posts and news, and insights written for the seller\'s product. ' +
        'Use before a sales call or outreach. Costs 1 credit; a repeat for the same e-mail and product within 24 hours returns the same research_id for free. ' +
        'Waits up to max_wait_seconds; if still running, call get_research with the research_id.',
      inputSchema: z.object({
        email: ZResearchRequestBody.shape.email,
        product: ZProduct,
        max_wait_seconds: z.number().int().min(0).max(50).default(25).describe('How long to wait for the result, 0 to 50 seconds'),
      }),
      outputSchema: ZResearchProspectOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ email, product, max_wait_seconds }, ctx) =>
      asToolErrors(deps.logger, async () => {
        const em = deps.orm.em.fork();
        const request = withField('email', () => parseResearchRequest({ email }));
        const apiKey = await keyForProduct(em, caller, product);
        if (caller.keyId !== null) await deps.keyLastUse.touch(em, caller.keyId);
        const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
        // The same e-mail and product within the idempotency window is the same job, charged once.
        const idempotencyKey = `mcp:${apiKey.productId}:${createHash('sha256').update(request.email).digest('hex').slice(0, 40)}`;
        const { job, isNew } = await submitAndStartResearch(deps, em, { apiKey, request, idempotencyKey, requestHash, source: 'mcp' });
        const replyText = max_wait_seconds > 0
          ? await waitWithProgress(deps, em, caller.accountId, job.id, max_wait_seconds, ctx)
          : await researchStatus(deps, em, caller.accountId, await findJobStatus(em, caller.accountId, job.id));
        const reply = JSON.parse(String(replyText)) as StatusReply;
        const now = deps.clock();
        const cost = { credits_charged: isNew ? await creditsChargedFor(em, job.id) : 0, credits_left: await creditsLeft(em, caller, now) };
        const structured = { ...statusView(reply), resource_uri: researchUri(job.id), cost };
        return toolResult(structured, { next: nextStep(reply), links: [{ uri: researchUri(job.id), name: `Full research ${job.id}` }] });
      }),
  );

  server.registerTool(
    'get_research',
    {
      title: 'Get a research result',
      description:
        'Reads a research job started by research_prospect or a list, by research_id. Use to poll a running job (it waits up to max_wait_seconds for the end) ' +
        'or to read a finished one again. view "summary" (default) is what a salesperson needs before a call; "full" is the complete reply of the HTTP status endpoint. Free.',
      inputSchema: z.object({
        research_id: z.string().min(1).max(100).describe('The research_id research_prospect or list_research returned'),
        view: z.enum(['summary', 'full']).default('summary'),
        max_wait_seconds: z.number().int().min(0).max(25).default(20).describe('How long to wait for a running job to end, 0 to 25 seconds'),
      }),
      outputSchema: ZGetResearchOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ research_id, view, max_wait_seconds }, ctx) =>
      asToolErrors(deps.logger, async () => {
        const em = deps.orm.em.fork();
        const replyText = String(max_wait_seconds > 0
          ? await waitWithProgress(deps, em, caller.accountId, research_id, max_wait_seconds, ctx)
          : await researchStatus(deps, em, caller.accountId, await findJobStatus(em, caller.accountId, research_id)));
        const reply = JSON.parse(replyText) as StatusReply;
        // `full`: the status endpoint's reply exactly, as text and as structuredContent.
        if (view === 'full') return toolResult(reply as unknown as Record<string, unknown>, { json: replyText, next: nextStep(reply) });
        const structured = { ...statusView(reply), resource_uri: researchUri(reply.research_id) };
        return toolResult(structured, { next: nextStep(reply), links: [{ uri: researchUri(reply.research_id), name: `Full research ${reply.research_id}` }] });
      }),
  );

  server.registerTool(
    'list_research',
    {
      title: 'List research jobs',
      description:
        'Lists the account\'s research jobs, newest first, 20 a page: research_id, e-mail, status, where it came from and when. ' +
        'Use to find an earlier research (filter by e-mail or status) before paying for a new one. Pass next_cursor as cursor for the next page. Free.',
      inputSchema: z.object({
        status: z.enum(RESEARCH_JOB_STATUSES).optional(),
        email: z.string().max(320).optional().describe('Only jobs for this e-mail address'),
        cursor: z.string().max(20).optional().describe('next_cursor of the previous page'),
      }),
      outputSchema: ZListResearchOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ status, email, cursor }) =>
      asToolErrors(deps.logger, async () => {
        const page = cursor === undefined ? 1 : Number(cursor);
        if (!Number.isInteger(page) || page < 1 || page > 100_000) return toolError('invalid_request', 'cursor: pass next_cursor of the previous page, as it was.', { field: 'cursor' });
        const em = deps.orm.em.fork();
        const account = await accountOf(em, caller);
        const found = await listJobs(em, account, { status, email: email ? normaliseEmail(email) : undefined, page, pageSize: PAGE_SIZE });
        const structured = {
          jobs: found.jobs.map((job) => ({
            research_id: job.id,
            email: job.email,
            status: job.status,
            source: job.source,
            product: job.productName,
            submitted_at: job.submittedAt,
            completed_at: job.completedAt,
          })),
          next_cursor: page < found.pageCount ? String(page + 1) : null,
        };
        return toolResult(structured);
      }),
  );

  server.registerResource(
    'research',
    new ResourceTemplate('research://{research_id}', { list: undefined }),
    { title: 'A research job\'s full reply', description: 'The status reply of GET /research-status/{research_id}, exactly', mimeType: 'application/json' },
    async (uri, variables) => {
      const researchId = String(variables.research_id ?? '');
      const em = deps.orm.em.fork();
      const job = await findJobStatus(em, caller.accountId, researchId);
      // Another account's id is as unknown as one that never existed.
      if (!job) throw new ResourceNotFoundError(uri.href, 'No research job with this id.');
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: String(await researchStatus(deps, em, caller.accountId, job)) }] };
    },
  );
}

/** The status reply as a tool shows it: the summary of a completed job instead of its data. */
function statusView(reply: StatusReply) {
  switch (reply.status) {
    case 'completed':
      return { research_id: reply.research_id, status: reply.status, completed_at: reply.completed_at, summary: summarise(reply.data) };
    case 'failed':
      return { research_id: reply.research_id, status: reply.status, error: reply.error };
    default:
      return { research_id: reply.research_id, status: reply.status, estimated_seconds: reply.estimated_seconds };
  }
}

/** What the agent should do next, in a sentence. */
function nextStep(reply: StatusReply): string {
  switch (reply.status) {
    case 'completed':
      return `Research ${reply.research_id} is complete. The full reply is the resource ${researchUri(reply.research_id)} (or get_research with view "full").`;
    case 'failed':
      return `Research ${reply.research_id} failed (${reply.error}); its credit was refunded.`;
    default:
      return `Research ${reply.research_id} is still ${reply.status} (about ${reply.estimated_seconds} s left). Call get_research with research_id "${reply.research_id}" to wait for it.`;
  }
}

/** A check of one input that failed names that input, as the tool's schema calls it. */
function withField<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof AppError) throw new AppError(error.code, `${field}: ${error.message}`, { ...error.details, field });
    throw error;
  }
}
