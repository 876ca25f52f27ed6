import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { ProductContextRow } from './product-context.ts';
import { ApiKey } from './api-key.ts';
import type { ResearchRequest } from '../../domain/research/request.ts';
import { RESEARCH_JOB_STATUSES } from '../../domain/research/job-status.ts';
import { RESEARCH_SOURCES } from '../../domain/research/fanout.ts';

export { RESEARCH_JOB_STATUSES, hasEnded, type ResearchJobStatus } from '../../domain/research/job-status.ts';

export const ResearchJob = defineEntity({
  name: 'ResearchJob',
  properties: {
    /** `res_…`, also the Temporal workflow id. */
    id: p.string().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    product: () => p.manyToOne(ProductContextRow).nullable().deleteRule('set null'),
    apiKey: () => p.manyToOne(ApiKey).nullable().deleteRule('set null'),
    email: p.string(),
    request: p.json<ResearchRequest>(),
    status: p.enum(RESEARCH_JOB_STATUSES),
    error: p.string().nullable(),
    submittedAt: p.datetime(),
    /**
     * Null from the transaction that records the job until its workflow exists:
     * the intent to start it, which the relay carries out (services/research/workflow-start-relay.ts).
     */
    workflowStartedAt: p.datetime().nullable(),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    /** The completed status reply, frozen as the exact JSON text that is sent. */
    completedReply: p.text().nullable(),
    /** Extension: `Idempotency-Key` header and a hash of the body it came with. */
    idempotencyKey: p.string().nullable(),
    requestHash: p.string().nullable(),
    /** Who asked for the job (docs/dashboard.md): the API, a list, a CRM run or an AI agent over MCP. */
    source: p.enum(RESEARCH_SOURCES).default('api'),
    /** Model tokens spent on this job (AI step). */
    modelUsage: p.json<{ calls: number; promptTokens: number; completionTokens: number }>().nullable(),
    /** When the purge deleted the job's Temporal history (services/retention/purge.ts); the row may outlive it. */
    historyDeletedAt: p.datetime().nullable(),
    /** The W3C `traceparent` the job was accepted in, with tracing on: its webhook deliveries join that trace. */
    traceContext: p.text().nullable(),
  },
});

export type IResearchJob = InferEntity<typeof ResearchJob>;
