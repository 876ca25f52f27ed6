// Completion webhooks as the dashboard and the API share them (docs/webhooks.md).
// Bundled into the browser too: zod and constants only.
import { z } from 'zod';

/** The events an endpoint can choose. */
export const WEBHOOK_EVENTS = ['research.completed', 'research.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Sent by "Send test event" only; never chosen. */
export const TEST_EVENT = 'webhook.test';

export type EndpointStatus = 'active' | 'paused' | 'disabled';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What the dashboard lists: never a secret. */
export interface EndpointView {
  id: number;
  url: string;
  events: string[];
  status: EndpointStatus;
  disabledReason: 'gone' | 'failing' | null;
  disabledAt: string | null;
  createdAt: string;
  /** A rotation's old secret still signs until then. */
  previousSecretExpiresAt: string | null;
}

export interface DeliveryView {
  id: string;
  eventType: string;
  researchId: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  createdAt: string;
  endedAt: string | null;
}

/** Page sizes the Webhooks page offers; the first is the default. */
export const DELIVERY_PAGE_SIZES = [25, 50, 100] as const;

/** `GET …/webhooks/{id}/deliveries?status=&page=&pageSize=`: one page of an endpoint's deliveries, newest first. */
export const ZDeliveryFilter = z.strictObject({
  status: z.enum(DELIVERY_STATUSES, { error: `Choose one of ${DELIVERY_STATUSES.join(', ')}.` }).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce
    .number()
    .refine((size) => (DELIVERY_PAGE_SIZES as readonly number[]).includes(size), `Choose ${DELIVERY_PAGE_SIZES.join(', ')} per page.`)
    .default(DELIVERY_PAGE_SIZES[0]),
});
export type TDeliveryFilter = z.infer<typeof ZDeliveryFilter>;

export interface DeliveryPage {
  deliveries: DeliveryView[];
  page: number;
  pageSize: number;
  pageCount: number;
  /** Deliveries that match the filter, on every page. */
  total: number;
}
