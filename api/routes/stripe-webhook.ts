import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import Stripe from 'stripe';
import { AppError } from '../../domain/errors.ts';
import { applyStripeEvent, type PaymentFailedNotifier } from '../../services/billing/stripe-sync.ts';
import { paymentFailedNotifier } from '../../services/billing/mail.ts';
import { nudgeMailOutbox } from '../../services/mail/outbox.ts';
import type { ApiDeps, RequestState } from '../deps.ts';

export const STRIPE_WEBHOOK_PATH = '/webhooks/stripe';
/** Stripe's events are a few kilobytes; its documentation caps payloads well under this. */
const MAX_EVENT_BYTES = 1024 * 1024;

export interface StripeWebhookOptions {
  notifyPaymentFailed?: PaymentFailedNotifier;
}

/**
 * POST /webhooks/stripe. The signature is checked on the raw bytes (a parsed
 * and re-serialised body would not match it), so this runs before any body
 * parser. Bad signature or a timestamp outside Stripe's 5-minute tolerance:
 * 400, nothing changes. An event type we do not handle: 200, ignored. An
 * event naming a subscription Stripe no longer has: 200, ignored, logged once
 * (its id is kept, so a redelivery is a duplicate). An error while applying:
 * 500, and Stripe delivers the event again.
 */
export function stripeWebhookRoutes(deps: ApiDeps, options: StripeWebhookOptions = {}): Middleware<RequestState> {
  const { billing } = deps;
  return async (ctx, next) => {
    if (ctx.path !== STRIPE_WEBHOOK_PATH) return next();
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new AppError('method_not_allowed', 'Stripe webhooks are POSTed.');
    }
    if (!billing) throw new AppError('billing_not_configured', 'Stripe is not configured on this server.');
    const signature = ctx.get('stripe-signature');
    if (!signature) throw new AppError('invalid_request', 'The Stripe-Signature header is missing.');
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: MAX_EVENT_BYTES, length: ctx.get('content-length') || undefined });
    } catch {
      throw new AppError('invalid_request', 'The event body could not be read.');
    }
    let event: Stripe.Event;
    try {
      event = billing.verifyEvent(raw, signature);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw new AppError('invalid_request', 'The Stripe signature does not match the body, or its timestamp is too old.');
      }
      throw new AppError('invalid_request', 'The event is not valid JSON.');
    }
    // The mail links to the dashboard at its public address (never the Host a request names).
    const notify = options.notifyPaymentFailed ?? paymentFailedNotifier(deps.publicUrl);
    const result = await applyStripeEvent(ctx.state.em, billing, event, notify);
    if (result.outcome === 'applied' && event.type === 'invoice.payment_failed' && event.data.object.billing_reason === 'subscription_cycle') {
      void nudgeMailOutbox(deps.temporal, deps.config.temporal.taskQueue, deps.logger);
    }
    // A plan below Growth paused the account's CRM integrations in the event's transaction: their Schedules follow.
    if (result.crmPaused && result.accountId !== null) await deps.crm?.pauseAccount(result.accountId, 'plan');
    if (result.missingSubscriptionId) {
      deps.logger.warn({ eventId: event.id, type: event.type, subscriptionId: result.missingSubscriptionId, accountId: result.accountId }, 'stripe event names a subscription Stripe no longer has: acknowledged, nothing changed');
    } else {
      deps.logger.info({ eventId: event.id, type: event.type, outcome: result.outcome, accountId: result.accountId }, 'stripe event');
    }
    ctx.status = 200;
    ctx.body = { received: true, outcome: result.outcome };
  };
}
