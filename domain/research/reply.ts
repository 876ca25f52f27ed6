import { z } from 'zod';
import { PROSPECT_REASONS } from './prospect-reason.ts';

// Reply shapes of the API (docs/api.md#the-result, docs/api.md#endpoints). The same schemas shape the replies in
// tests and produce the OpenAPI document. Any field can be null (docs/api.md#the-result).

const nullableString = z.string().nullable();
const nullableList = z.array(z.string()).nullable();

export const ZPost = z.object({
  text: z.string(),
  posted: z.string().describe('YYYY-MM-DD HH:MM:SS'),
  post_url: z.string(),
  reshared: z.boolean(),
  summary: nullableString,
});

export const ZProspect = z.object({
  id: z.number().int(),
  name: nullableString,
  title: nullableString.describe('Job title, in English'),
  company: nullableString,
  email: z.string(),
  social_url: nullableString,
  photo: nullableString,
  last_role_start: nullableString.describe('YYYY-MM-DD'),
  summary: nullableString,
  opening_talk: nullableList,
  posts: z.array(ZPost).nullable(),
});

export const ZNewsItem = z.object({
  summary: nullableString,
  url: z.string(),
  date: z.string().describe('YYYY-MM'),
});

export const ZCompany = z.object({
  id: z.number().int(),
  name: nullableString,
  description: nullableString.describe('In English'),
  social_url: nullableString,
  website: nullableString,
  industry: nullableString,
  hq: nullableString,
  revenue: nullableString,
  employees: nullableString,
  technologies: nullableList,
  problems: nullableList,
  services: nullableList,
  icp: nullableList,
  synergy_points: nullableList,
  discovery_questions: nullableList,
  clients: z.object({ count: z.string() }).nullable(),
  news: z.array(ZNewsItem).nullable(),
  insights: nullableList,
  posts: z.array(ZPost).nullable(),
});

export const ZDecisionMaker = z.object({
  id: z.number().int(),
  full_name: z.string(),
  position_title: z.string(),
  social_url: z.string(),
  picture_url: nullableString,
  location_text: nullableString,
  company_name: z.string(),
});

export const ZResearchData = z.object({
  prospect: ZProspect.nullable(),
  company: ZCompany.nullable(),
  decision_makers: z.array(ZDecisionMaker),
});

export const ZMeta = z
  .object({
    prospect: z
      .object({
        from_cache: z.boolean(),
        cache_age_days: z.number().int(),
        source: nullableString,
        reason: z.enum(PROSPECT_REASONS).optional().describe('Why no person was found: the address (free_mail, disposable, role_address) or the sources'),
      })
      .optional(),
    company: z.object({ from_cache: z.boolean(), apis_called: z.array(z.string()) }).optional(),
    ai: z.object({ source: nullableString, generated: z.boolean() }).optional(),
  })
  .describe('Informational only; may change between versions');

export const ZAccepted = z.object({
  research_id: z.string(),
  status: z.literal('processing'),
  estimated_seconds: z.number().int(),
});

export const ZRunningStatus = z.object({
  research_id: z.string(),
  status: z.enum(['queued', 'processing']),
  estimated_seconds: z.number().int(),
});

export const ZCompletedStatus = z.object({
  research_id: z.string(),
  status: z.literal('completed'),
  completed_at: z.string().describe('ISO 8601 with offset'),
  data: ZResearchData,
  _meta: ZMeta.optional(),
});

export const ZFailedStatus = z.object({
  research_id: z.string(),
  status: z.literal('failed'),
  error: z.enum(['internal_error', 'timeout']),
});

export const ZStatusReply = z.discriminatedUnion('status', [ZRunningStatus, ZCompletedStatus, ZFailedStatus]);

export const ZErrorBody = z.looseObject({
  error: z.string(),
  message: z.string().optional(),
  used: z.number().int().optional(),
  limit: z.number().int().optional(),
});

export type ResearchData = z.infer<typeof ZResearchData>;
export type ReplyMeta = z.infer<typeof ZMeta>;
export type StatusReply = z.infer<typeof ZStatusReply>;

/** What a completed job keeps: the reply's `data` and `_meta`, frozen at completion. */
export interface StoredResearchReply {
  data: ResearchData;
  meta: ReplyMeta;
}
