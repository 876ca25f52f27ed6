import { z } from 'zod';
import { ZResearchRequestBody } from '../domain/research/request.ts';
import {
  ZAccepted,
  ZCompany,
  ZCompletedStatus,
  ZDecisionMaker,
  ZErrorBody,
  ZFailedStatus,
  ZMeta,
  ZNewsItem,
  ZPost,
  ZProspect,
  ZResearchData,
  ZRunningStatus,
  ZStatusReply,
} from '../domain/research/reply.ts';
import { ZResearchCompletedEvent, ZResearchFailedEvent, ZWebhookEvent, ZWebhookTestEvent } from '../domain/webhooks/payloads.ts';

// Every shape is a named schema under components/schemas, so that the typed
// clients generated from this document (clients/typescript, clients/python)
// name them too: Prospect, Company, CompletedReply, ResearchCompletedEvent, …
const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  ResearchRequest: ZResearchRequestBody,
  Accepted: ZAccepted,
  ErrorBody: ZErrorBody,
  StatusReply: ZStatusReply,
  RunningReply: ZRunningStatus,
  CompletedReply: ZCompletedStatus,
  FailedReply: ZFailedStatus,
  ResearchData: ZResearchData,
  Prospect: ZProspect,
  Company: ZCompany,
  DecisionMaker: ZDecisionMaker,
  Post: ZPost,
  NewsItem: ZNewsItem,
  ReplyMeta: ZMeta,
  ResearchCompletedEvent: ZResearchCompletedEvent,
  ResearchFailedEvent: ZResearchFailedEvent,
  WebhookTestEvent: ZWebhookTestEvent,
  WebhookEvent: ZWebhookEvent,
};

function componentSchemas(): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>();
  for (const [id, zodSchema] of Object.entries(NAMED_SCHEMAS)) registry.add(zodSchema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'output', uri: (id) => `#/components/schemas/${id}` });
  // `$schema` and `$id` belong to standalone documents, not to a component.
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...rest }]) => [id, rest]));
}

const ref = (id: keyof typeof NAMED_SCHEMAS) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: keyof typeof NAMED_SCHEMAS, description: string) => ({ description, content: { 'application/json': { schema: ref(id) } } });
const error = (description: string) => json('ErrorBody', description);

const bearer = [{ apiKey: [] }];

/** OpenAPI 3.1 document of the HTTP API, generated from the zod schemas that validate and shape it. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Prospect Enrichment API', version: '1.4.0' },
    components: {
      schemas: componentSchemas(),
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'svc_live_ followed by 42 characters' } },
    },
    paths: {
      '/research': {
        post: {
          operationId: 'startResearch',
          summary: 'Start an enrichment job (1 credit)',
          security: bearer,
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('ResearchRequest') } } },
          responses: {
            '202': {
              ...json('Accepted', 'Accepted; poll the status endpoint'),
              links: { getResearchStatus: { operationId: 'getResearchStatus', parameters: { research_id: '$response.body#/research_id' } } },
            },
            '400': error('missing_key_id, api_key_has_no_product, missing_email, invalid_email_format, invalid_request'),
            '401': error('missing_api_key, invalid_key'),
            '409': error('idempotency_key_reused'),
            '413': error('payload_too_large'),
            '429': error('credits_exhausted, trial_limit_reached (with used and limit)'),
            '500': error('internal_error'),
          },
        },
      },
      '/research-status/{research_id}': {
        get: {
          operationId: 'getResearchStatus',
          summary: 'Poll a job (free)',
          security: bearer,
          parameters: [
            { name: 'research_id', in: 'path', required: true, schema: { type: 'string' } },
            {
              name: 'wait',
              in: 'query',
              required: false,
              description: 'Hold the reply until the job ends or this many seconds pass; values above 25 count as 25',
              schema: { type: 'integer', minimum: 0 },
            },
          ],
          responses: {
            '200': json('StatusReply', 'The job state'),
            '400': error('missing_key_id, invalid_request'),
            '401': error('missing_api_key, invalid_key'),
            '404': error('not_found'),
            '500': error('internal_error'),
          },
        },
      },
    },
    // A compatible extension: what an endpoint set on the dashboard's Webhooks page receives, per event type.
    webhooks: {
      'research.completed': webhookOperation('researchCompletedWebhook', 'research.completed: a job ended completed', 'ResearchCompletedEvent'),
      'research.failed': webhookOperation('researchFailedWebhook', 'research.failed: a job ended failed', 'ResearchFailedEvent'),
      'webhook.test': webhookOperation('webhookTestEvent', 'webhook.test: "Send test event" on the Webhooks page', 'WebhookTestEvent'),
    },
  };
}

/** One event type: its body is exactly its named schema; signed per Standard Webhooks (headers below). */
function webhookOperation(operationId: string, summary: string, body: 'ResearchCompletedEvent' | 'ResearchFailedEvent' | 'WebhookTestEvent') {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
  return {
    post: {
      operationId,
      summary: `${summary}; retried for about a day until a 2xx`,
      parameters: [
        header('webhook-id', 'The event id: the same on every attempt, for de-duplication'),
        header('webhook-timestamp', 'Unix seconds of this attempt'),
        header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the whsec_ secret (two during a rotation)'),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref(body) } } },
      responses: { '200': { description: 'Any 2xx: delivered. 410 disables the endpoint; another 4xx is not retried.' } },
    },
  };
}
