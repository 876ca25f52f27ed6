import { z } from 'zod';
import { ZCompletedStatus, ZFailedStatus } from '../research/reply.ts';

// What a completion webhook's body carries, per event type (docs/api.md, Webhooks).
// The database writes the bodies (the delivery trigger); these schemas document
// them in /openapi.json, and the tests hold real deliveries to them.

const timestamp = z.string().describe('When the event was created (ISO 8601, UTC); the same on every attempt');

/** A job ended `completed`: `data` is, byte for byte, its `GET /research-status/{id}` reply. */
export const ZResearchCompletedEvent = z.object({
  type: z.literal('research.completed'),
  timestamp,
  data: ZCompletedStatus,
});

/** A job ended `failed`: `data` is its `GET /research-status/{id}` reply. */
export const ZResearchFailedEvent = z.object({
  type: z.literal('research.failed'),
  timestamp,
  data: ZFailedStatus,
});

/** "Send test event" on the Webhooks page; never chosen as an event. */
export const ZWebhookTestEvent = z.object({
  type: z.literal('webhook.test'),
  timestamp,
  data: z.object({ message: z.string() }),
});

/** Any delivery's body; `type` tells which. */
export const ZWebhookEvent = z.discriminatedUnion('type', [ZResearchCompletedEvent, ZResearchFailedEvent, ZWebhookTestEvent]);
