// Completion webhooks as the dashboard and the API share them (DECISIONS.md "Compatible extensions").

/** The events an endpoint can choose. */
export const WEBHOOK_EVENTS = ['research.completed', 'research.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Sent by "Send test event" only; never chosen. */
export const TEST_EVENT = 'webhook.test';

export type EndpointStatus = 'active' | 'paused' | 'disabled';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

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
