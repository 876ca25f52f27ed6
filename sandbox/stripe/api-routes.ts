// The REST endpoints our billing client calls, as Stripe's API reference
// describes them (docs.stripe.com/api; request and reply shapes checked
// against stripe/openapi openapi/spec3.json and fixtures3.json).

import Router from '@koa/router';
import { StripeApiError, invalidParam, missingParam } from './errors.ts';
import { isPaymentBehavior, isProrationBehavior, PAYMENT_BEHAVIORS, PRORATION_BEHAVIORS, type StripeWorld } from './world.ts';
import {
  expandOf,
  hashAt,
  optionalArray,
  optionalBoolean,
  optionalEnum,
  optionalHash,
  optionalInteger,
  optionalString,
  optionalTimestamp,
  requiredString,
  allowOnly,
  type Params,
} from './params.ts';
import { newId } from './records.ts';
import { portalSessionJson } from './json-sessions.ts';
import { createCheckoutSession } from './checkout.ts';
import { releaseSchedule, scheduleFromSubscription, updateSchedulePhases } from './schedules.ts';
import { cancelNow, changePrice, previewPriceChange, setCancelAtPeriodEnd, setMetadata } from './subscriptions.ts';

export interface ApiState {
  params: Params;
}

export function apiRouter(world: StripeWorld): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/v1' });

  // POST /v1/customers: docs.stripe.com/api/customers/create → Customer (fixtures3 `resources.customer`).
  router.post('/customers', (ctx) => {
    const p = ctx.state.params;
    allowOnly(p, ['email', 'name', 'metadata', 'description', 'phone', 'address', 'preferred_locales']);
    const customer = world.createCustomer({ email: optionalString(p, 'email'), name: optionalString(p, 'name'), metadata: optionalHash(p, 'metadata') });
    ctx.body = world.customerJson(customer);
  });
  // GET /v1/customers/:id: docs.stripe.com/api/customers/retrieve.
  router.get('/customers/:id', (ctx) => {
    ctx.body = world.customerJson(world.customer(ctx.params.id));
  });

  // POST /v1/checkout/sessions: docs.stripe.com/api/checkout/sessions/create → Checkout Session (fixtures3 `resources["checkout.session"]`).
  router.post('/checkout/sessions', (ctx) => {
    const p = ctx.state.params;
    allowOnly(p, ['mode', 'customer', 'customer_email', 'client_reference_id', 'line_items', 'subscription_data', 'metadata', 'success_url', 'cancel_url', 'allow_promotion_codes', 'billing_address_collection', 'locale']);
    const mode = optionalEnum(p, 'mode', ['payment', 'setup', 'subscription'] as const);
    if (!mode) throw missingParam('mode');
    if (mode !== 'subscription') throw invalidParam('mode', 'The stand-in supports Checkout in `subscription` mode only.');
    const customer = optionalString(p, 'customer');
    if (customer) world.customer(customer, 'customer');
    const lineItems = optionalArray(p, 'line_items').map((raw, index) => {
      const item = hashAt(raw, `line_items[${index}]`);
      const price = requiredString(item, 'price', `line_items[${index}][price]`);
      const recurring = world.price(price, `line_items[${index}][price]`).recurring;
      if (!recurring) throw invalidParam(`line_items[${index}][price]`, 'You must provide at least one recurring price in `subscription` mode when using prices.');
      return { price, quantity: optionalInteger(item, 'quantity', `line_items[${index}][quantity]`) ?? 1 };
    });
    if (lineItems.length === 0) throw missingParam('line_items');
    const successUrl = optionalString(p, 'success_url');
    if (!successUrl) throw missingParam('success_url');
    const subscriptionData = p.subscription_data === undefined ? {} : hashAt(p.subscription_data, 'subscription_data');
    const session = createCheckoutSession(world, {
      mode,
      customer,
      customerEmail: optionalString(p, 'customer_email') ?? (customer ? world.customer(customer).email : null),
      clientReferenceId: optionalString(p, 'client_reference_id'),
      lineItems,
      subscriptionMetadata: optionalHash(subscriptionData, 'metadata', 'subscription_data[metadata]'),
      metadata: optionalHash(p, 'metadata'),
      successUrl,
      cancelUrl: optionalString(p, 'cancel_url'),
    });
    ctx.body = world.sessionJson(session);
  });
  // GET /v1/checkout/sessions/:id: docs.stripe.com/api/checkout/sessions/retrieve.
  router.get('/checkout/sessions/:id', (ctx) => {
    ctx.body = world.sessionJson(world.session(ctx.params.id));
  });

  // POST /v1/invoices/create_preview: docs.stripe.com/api/invoices/create_preview → Invoice (fixtures3 `resources.invoice`).
  router.post('/invoices/create_preview', (ctx) => {
    const p = ctx.state.params;
    allowOnly(p, ['customer', 'subscription', 'subscription_details']);
    const customer = optionalString(p, 'customer');
    const subscriptionId = optionalString(p, 'subscription');
    if (!customer && !subscriptionId) throw missingParam('customer');
    if (customer) world.customer(customer, 'customer');
    if (!subscriptionId) throw new StripeApiError(400, 'invalid_request_error', 'The stand-in previews changes to an existing subscription only: pass `subscription`.', { param: 'subscription' });
    const sub = world.subscription(subscriptionId, 'subscription');
    if (customer && sub.customer !== customer) throw invalidParam('subscription', `The subscription ${sub.id} does not belong to ${customer}.`);
    const details = p.subscription_details === undefined ? {} : hashAt(p.subscription_details, 'subscription_details');
    const items = optionalArray(details, 'items').map((raw, index) => hashAt(raw, `subscription_details[items][${index}]`));
    const item = items[0];
    const priceId = item ? requiredString(item, 'price', 'subscription_details[items][0][price]') : sub.item.price;
    const behavior = optionalEnum(details, 'proration_behavior', PRORATION_BEHAVIORS, 'subscription_details[proration_behavior]') ?? 'create_prorations';
    const prorationDate = optionalTimestamp(details, 'proration_date', 'subscription_details[proration_date]');
    const preview = previewPriceChange(world, sub, item ? optionalString(item, 'id', 'subscription_details[items][0][id]') : null, priceId, behavior, prorationDate);
    ctx.body = { ...world.invoiceJson(preview), id: null };
  });
  // GET /v1/invoices: docs.stripe.com/api/invoices/list. Filters `customer`,
  // `subscription`, `status` (draft, open, paid, uncollectible, void); "sorted by
  // creation date, with the most recently created invoices appearing first";
  // `limit` 1–100 (default 10) with `has_more`, paged by `starting_after` /
  // `ending_before` (docs.stripe.com/api/pagination).
  router.get('/invoices', (ctx) => {
    const p = ctx.state.params;
    const customer = optionalString(p, 'customer');
    const subscription = optionalString(p, 'subscription');
    const status = optionalEnum(p, 'status', ['draft', 'open', 'paid', 'uncollectible', 'void'] as const);
    const limit = optionalInteger(p, 'limit') ?? 10;
    if (limit < 1 || limit > 100) throw invalidParam('limit', 'This value must be greater than or equal to 1 and less than or equal to 100.');
    const startingAfter = optionalString(p, 'starting_after');
    const endingBefore = optionalString(p, 'ending_before');
    // Newest first; invoices made in the same second keep the order they were made in, newest first too.
    const all = [...world.invoices.values()]
      .map((invoice, index) => ({ invoice, index }))
      .filter(({ invoice }) => (!customer || invoice.customer === customer) && (!subscription || invoice.subscription === subscription) && (!status || invoice.status === status))
      .sort((a, b) => b.invoice.created - a.invoice.created || b.index - a.index)
      .map(({ invoice }) => invoice);
    const cursor = (id: string, param: string) => {
      const at = all.findIndex((invoice) => invoice.id === id);
      if (at < 0) throw new StripeApiError(400, 'invalid_request_error', `No such invoice: '${id}'`, { code: 'resource_missing', param });
      return at;
    };
    let page: typeof all;
    let hasMore: boolean;
    if (startingAfter) {
      const from = cursor(startingAfter, 'starting_after') + 1;
      page = all.slice(from, from + limit);
      hasMore = from + limit < all.length;
    } else if (endingBefore) {
      const to = cursor(endingBefore, 'ending_before');
      page = all.slice(Math.max(0, to - limit), to);
      hasMore = to - limit > 0;
    } else {
      page = all.slice(0, limit);
      hasMore = limit < all.length;
    }
    ctx.body = { object: 'list', data: page.map(world.invoiceJson), has_more: hasMore, url: '/v1/invoices' };
  });
  router.get('/invoices/:id', (ctx) => {
    const invoice = world.invoices.get(ctx.params.id);
    if (!invoice) throw new StripeApiError(404, 'invalid_request_error', `No such invoice: '${ctx.params.id}'`, { code: 'resource_missing', param: 'id' });
    ctx.body = world.invoiceJson(invoice);
  });

  // GET /v1/subscriptions/:id: docs.stripe.com/api/subscriptions/retrieve → Subscription (fixtures3 `resources.subscription`).
  router.get('/subscriptions/:id', (ctx) => {
    ctx.body = world.subscriptionJson(world.subscription(ctx.params.id), expandOf(ctx.state.params));
  });
  // POST /v1/subscriptions/:id: docs.stripe.com/api/subscriptions/update.
  router.post('/subscriptions/:id', (ctx) => {
    const p = ctx.state.params;
    allowOnly(p, ['items', 'proration_behavior', 'payment_behavior', 'proration_date', 'cancel_at_period_end', 'metadata']);
    const sub = world.subscription(ctx.params.id);
    const items = optionalArray(p, 'items').map((raw, index) => hashAt(raw, `items[${index}]`));
    const proration = optionalEnum(p, 'proration_behavior', PRORATION_BEHAVIORS) ?? 'create_prorations';
    const payment = optionalEnum(p, 'payment_behavior', PAYMENT_BEHAVIORS) ?? 'allow_incomplete';
    const prorationDate = optionalTimestamp(p, 'proration_date');
    const cancel = optionalBoolean(p, 'cancel_at_period_end');
    const metadata = optionalHash(p, 'metadata');
    if (items.length > 1) throw invalidParam('items', 'The stand-in models subscriptions with one item.');
    const item = items[0];
    if (item) {
      const itemId = optionalString(item, 'id', 'items[0][id]');
      if (itemId && itemId !== sub.item.id) throw new StripeApiError(400, 'invalid_request_error', `Invalid subscription_item id: ${itemId}`, { param: 'items[0][id]' });
      if (!itemId) throw invalidParam('items[0][id]', 'Adding a second item is not supported by the stand-in: pass the existing item id.');
      const price = optionalString(item, 'price', 'items[0][price]');
      if (price && isProrationBehavior(proration) && isPaymentBehavior(payment)) changePrice(world, sub, price, proration, payment, prorationDate);
    }
    if (cancel !== null) setCancelAtPeriodEnd(world, sub, cancel);
    if (Object.keys(metadata).length > 0) setMetadata(world, sub, metadata);
    ctx.body = world.subscriptionJson(sub, expandOf(p));
  });
  // DELETE /v1/subscriptions/:id: docs.stripe.com/api/subscriptions/cancel.
  router.delete('/subscriptions/:id', (ctx) => {
    const sub = world.subscription(ctx.params.id);
    cancelNow(world, sub);
    ctx.body = world.subscriptionJson(sub, expandOf(ctx.state.params));
  });

  // POST /v1/subscription_schedules: docs.stripe.com/api/subscription_schedules/create (`from_subscription`) → Subscription Schedule (fixtures3 `resources.subscription_schedule`).
  router.post('/subscription_schedules', (ctx) => {
    allowOnly(ctx.state.params, ['from_subscription', 'metadata']);
    const from = optionalString(ctx.state.params, 'from_subscription');
    if (!from) throw new StripeApiError(400, 'invalid_request_error', 'The stand-in creates schedules `from_subscription` only.', { code: 'parameter_missing', param: 'from_subscription' });
    ctx.body = world.scheduleJson(scheduleFromSubscription(world, world.subscription(from, 'from_subscription')));
  });
  router.get('/subscription_schedules/:id', (ctx) => {
    ctx.body = world.scheduleJson(world.schedule(ctx.params.id));
  });
  // POST /v1/subscription_schedules/:id: docs.stripe.com/api/subscription_schedules/update.
  router.post('/subscription_schedules/:id', (ctx) => {
    const p = ctx.state.params;
    allowOnly(p, ['phases', 'end_behavior', 'proration_behavior', 'metadata']);
    const schedule = world.schedule(ctx.params.id);
    const phases = optionalArray(p, 'phases').map((raw, index) => {
      const phase = hashAt(raw, `phases[${index}]`);
      const items = optionalArray(phase, 'items').map((rawItem, itemIndex) => {
        const item = hashAt(rawItem, `phases[${index}][items][${itemIndex}]`);
        return { price: requiredString(item, 'price', `phases[${index}][items][${itemIndex}][price]`), quantity: optionalInteger(item, 'quantity', `phases[${index}][items][${itemIndex}][quantity]`) ?? 1 };
      });
      return {
        startDate: optionalTimestamp(phase, 'start_date', `phases[${index}][start_date]`),
        endDate: optionalTimestamp(phase, 'end_date', `phases[${index}][end_date]`),
        items,
        prorationBehavior: optionalEnum(phase, 'proration_behavior', PRORATION_BEHAVIORS, `phases[${index}][proration_behavior]`) ?? 'create_prorations',
      };
    });
    const endBehavior = optionalEnum(p, 'end_behavior', ['release', 'cancel'] as const);
    if (phases.length > 0) updateSchedulePhases(world, schedule, phases, endBehavior);
    ctx.body = world.scheduleJson(schedule);
  });
  // POST /v1/subscription_schedules/:id/release: docs.stripe.com/api/subscription_schedules/release.
  router.post('/subscription_schedules/:id/release', (ctx) => {
    const schedule = world.schedule(ctx.params.id);
    releaseSchedule(world, schedule);
    ctx.body = world.scheduleJson(schedule);
  });

  // POST /v1/billing_portal/sessions: docs.stripe.com/api/customer_portal/sessions/create → Portal Session (fixtures3 `resources["billing_portal.session"]`).
  router.post('/billing_portal/sessions', (ctx) => {
    const p = ctx.state.params;
    allowOnly(p, ['customer', 'return_url', 'configuration', 'locale']);
    const customer = world.customer(requiredString(p, 'customer'), 'customer');
    const session = { id: newId('bps'), created: world.now(), customer: customer.id, returnUrl: optionalString(p, 'return_url') };
    world.portalSessions.set(session.id, session);
    ctx.body = portalSessionJson(session, world.baseUrl);
  });

  // GET /v1/prices/:id: docs.stripe.com/api/prices/retrieve.
  router.get('/prices/:id', (ctx) => {
    ctx.body = world.price(ctx.params.id, 'id');
  });
  router.get('/prices', (ctx) => {
    ctx.body = { object: 'list', data: [...world.prices.values()], has_more: false, url: '/v1/prices' };
  });

  return router;
}
