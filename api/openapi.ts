import { z } from 'zod';
import { ZResearchRequestBody } from '../domain/research-request.ts';
import { ZAccepted, ZErrorBody, ZStatusReply } from '../domain/research-reply.ts';

const schema = (zodSchema: z.ZodType) => z.toJSONSchema(zodSchema, { target: 'draft-2020-12', io: 'output' });
const json = (zodSchema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema: schema(zodSchema) } } });
const error = (description: string) => json(ZErrorBody, description);

const bearer = [{ apiKey: [] }];

/** OpenAPI 3.1 document of the HTTP API, generated from the zod schemas that validate and shape it. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Prospect Enrichment API', version: '1.3.0' },
    components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'svc_live_ followed by 42 characters' } } },
    paths: {
      '/research': {
        post: {
          operationId: 'startResearch',
          summary: 'Start an enrichment job (1 credit)',
          security: bearer,
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }],
          requestBody: { required: true, content: { 'application/json': { schema: schema(ZResearchRequestBody) } } },
          responses: {
            '202': {
              ...json(ZAccepted, 'Accepted; poll the status endpoint'),
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
            '200': json(ZStatusReply, 'The job state'),
            '400': error('missing_key_id, invalid_request'),
            '401': error('missing_api_key, invalid_key'),
            '404': error('not_found'),
            '500': error('internal_error'),
          },
        },
      },
    },
    // A compatible extension (DECISIONS.md): what an endpoint set on the dashboard's Webhooks page receives.
    webhooks: Object.fromEntries(['research.completed', 'research.failed'].map((type) => [type, webhookOperation(type)])),
  };
}

/** A completion webhook: `data` is the job's status reply; signed per Standard Webhooks (headers below). */
function webhookOperation(type: string) {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
  return {
    post: {
      operationId: type === 'research.completed' ? 'researchCompletedWebhook' : 'researchFailedWebhook',
      summary: `${type}: a job ended; retried for about a day until a 2xx`,
      parameters: [
        header('webhook-id', 'The event id: the same on every attempt, for de-duplication'),
        header('webhook-timestamp', 'Unix seconds of this attempt'),
        header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the whsec_ secret (two during a rotation)'),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['type', 'timestamp', 'data'],
              properties: { type: { const: type }, timestamp: { type: 'string', format: 'date-time' }, data: schema(ZStatusReply) },
            },
          },
        },
      },
      responses: { '200': { description: 'Any 2xx: delivered. 410 disables the endpoint; another 4xx is not retried.' } },
    },
  };
}
