import { z } from 'zod';
import { ZMeta, ZResearchData } from '../../domain/research/reply.ts';
import { RESEARCH_JOB_STATUSES } from '../../domain/research/job-status.ts';
import { RESEARCH_SOURCES } from '../../domain/research/fanout.ts';
import { LIST_ROW_STATUSES, LIST_STATUSES } from '../../domain/lists/lists.ts';
import { PLAN_NAMES } from '../../domain/billing/plans.ts';
import { LANGUAGES } from '../../domain/research/languages.ts';

// Output schemas of the MCP tools (docs/mcp.md#tools). Each is an object at its
// root, so the SDK sends structuredContent as it is (never wrapped).

export const ZCost = z.object({
  credits_charged: z.number().int().describe('Credits this call took (0 for a repeat, a cache-free read or a refunded failure)'),
  credits_left: z.number().int().describe('Credits the account has left this cycle'),
});

const nullable = z.string().nullable();
const clipped = z.array(z.string());

/** What a salesperson needs before a call: a bounded extract of the completed reply (the full one is `research://{id}`). */
export const ZResearchSummary = z.object({
  prospect: z
    .object({
      name: nullable,
      title: nullable,
      company: nullable,
      email: z.string(),
      social_url: nullable,
      last_role_start: nullable,
      summary: nullable,
      opening_talk: clipped,
      recent_posts: z.array(z.object({ posted: z.string(), text: z.string(), post_url: z.string() })),
    })
    .nullable(),
  company: z
    .object({
      name: nullable,
      website: nullable,
      industry: nullable,
      hq: nullable,
      employees: nullable,
      revenue: nullable,
      description: nullable,
      problems: clipped,
      synergy_points: clipped,
      discovery_questions: clipped,
      insights: clipped,
      technologies: clipped,
      news: z.array(z.object({ date: z.string(), summary: nullable, url: z.string() })),
    })
    .nullable(),
  decision_makers: z.array(z.object({ full_name: z.string(), position_title: z.string(), social_url: z.string() })),
  generated_by_ai: z.array(z.string()).describe('Fields written by the model from the sources: suggestions, not facts'),
});

const statusFields = {
  research_id: z.string(),
  status: z.enum(RESEARCH_JOB_STATUSES),
  estimated_seconds: z.number().int().optional().describe('While queued or processing: seconds until it likely ends'),
  error: z.enum(['internal_error', 'timeout']).optional().describe('When failed (the credit was refunded)'),
  completed_at: z.string().optional(),
};

/** research_prospect: the job, its summary once completed, and what it cost. */
export const ZResearchProspectOutput = z.object({
  ...statusFields,
  summary: ZResearchSummary.optional(),
  resource_uri: z.string().describe('research://{research_id}: the full reply'),
  cost: ZCost,
});

/**
 * get_research: `summary` is the bounded view; `full` is exactly the status
 * endpoint's reply (docs/api.md#get-research-statusresearch_id), so its
 * fields (`data`, `_meta`) are here too, optional.
 */
export const ZGetResearchOutput = z.object({
  ...statusFields,
  summary: ZResearchSummary.optional(),
  resource_uri: z.string().optional(),
  data: ZResearchData.optional(),
  _meta: ZMeta.optional(),
});

export const ZListResearchOutput = z.object({
  jobs: z.array(
    z.object({
      research_id: z.string(),
      email: z.string(),
      status: z.enum(RESEARCH_JOB_STATUSES),
      source: z.enum(RESEARCH_SOURCES),
      product: nullable,
      submitted_at: z.string(),
      completed_at: nullable,
    }),
  ),
  next_cursor: z.string().nullable().describe('Pass as cursor for the next 20; null on the last page'),
});

export const ZGetAccountOutput = z.object({
  plan: z.enum(PLAN_NAMES),
  credits_left: z.number().int(),
  credits_used: z.number().int(),
  credit_limit: z.number().int(),
  cycle_end: z.string(),
  limits: z.object({
    credits_per_cycle: z.number().int(),
    decision_makers: z.boolean(),
    company_news: z.boolean(),
    lists_at_once: z.number().int(),
    emails_per_list_call: z.number().int(),
  }),
  products: z.array(z.object({ id: z.number().int(), name: z.string(), is_default: z.boolean() })),
  language: z.enum(LANGUAGES),
});

export const ZResearchListOutput = z.object({
  list_id: z.string(),
  status: z.enum(LIST_STATUSES),
  accepted: z.number().int().describe('Rows that will be researched'),
  refused: z.array(z.object({ email: z.string(), reason: z.string() })),
  credits_to_use: z.number().int().describe('One per accepted row, taken as each row starts'),
  cost: ZCost,
});

export const ZGetListOutput = z.object({
  list_id: z.string(),
  name: z.string(),
  status: z.enum(LIST_STATUSES),
  progress: z.object({ total: z.number().int(), done: z.number().int(), failed: z.number().int(), remaining: z.number().int(), eta_seconds: z.number().nullable() }),
  rows: z.array(z.object({ email: nullable, status: z.enum(LIST_ROW_STATUSES), research_id: nullable, error: nullable })),
});
