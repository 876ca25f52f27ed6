// The hosted pages a browser clicks through: Checkout (`/pay/:id`) and the
// Billing Portal (`/portal/:id`), plus an index for developers. Plain HTML
// forms; every control has a visible label or text, as tests select by role.

import Router from '@koa/router';
import type { Context } from 'koa';
import { StripeApiError } from './errors.ts';
import type { StripeWorld } from './world.ts';
import { invoiceTotal, type SubscriptionRecord } from './records.ts';
import { payCheckout } from './checkout.ts';
import { releaseSchedule, scheduleFromSubscription, updateSchedulePhases } from './schedules.ts';
import { changePrice, setCancelAtPeriodEnd } from './subscriptions.ts';

const escape = (value: unknown) =>
  String(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
const usd = (cents: number) => `${cents < 0 ? '−' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;
const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escape(title)} · Stripe sandbox</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:640px;margin:2rem auto;padding:0 1rem;color:#1a1f36}
header p{color:#697386;margin:0}button{font:inherit;padding:.5rem 1rem;margin:.25rem 0;border-radius:4px;border:1px solid #635bff;background:#635bff;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#635bff}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #e3e8ee}
[role=alert]{background:#fde8e8;padding:.5rem 1rem;border-radius:4px}form{margin:1rem 0}</style></head>
<body><header><p>Stripe sandbox (test mode): no real payment is taken.</p></header><main>${body}</main></body></html>`;
}

const send = (ctx: Context, html: string, status = 200) => {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
};

/** Events the pages cause are delivered by the server's middleware after each request. */
export function pageRouter(world: StripeWorld): Router {
  const router = new Router();

  router.get('/', (ctx) => {
    const rows = world.events.slice(-30).reverse().map((event) => `<tr><td>${escape(new Date(event.created * 1000).toISOString())}</td><td>${escape(event.type)}</td><td>${escape(event.id)}</td></tr>`);
    send(ctx, page('Stripe sandbox', `<h1>Stripe sandbox</h1><p>Clock: ${escape(new Date(world.now() * 1000).toISOString())}</p>
<p>${world.customers.size} customers, ${world.subscriptions.size} subscriptions, ${world.invoices.size} invoices.</p>
<p>Test controls: <code>POST /__sandbox/clock {"to"}</code>, <code>POST /__sandbox/fail-next-payment</code>, <code>GET /__sandbox/events</code>, <code>POST /__sandbox/webhooks {"url","order","duplicate"}</code>, <code>POST /__sandbox/reset</code>.</p>
<table aria-label="Recent events"><thead><tr><th scope="col">Created</th><th scope="col">Type</th><th scope="col">Id</th></tr></thead><tbody>${rows.join('')}</tbody></table>`));
  });

  router.get('/pay/:id', (ctx) => {
    const session = world.session(ctx.params.id);
    if (session.status !== 'open') return send(ctx, page('Checkout', `<h1>This Checkout page is no longer available</h1><p>The session is ${escape(session.status)}.</p>`), 410);
    const items = session.lineItems.map((item) => world.price(item.price, 'price'));
    const amount = items.reduce((sum, price) => sum + price.unit_amount, 0);
    const declined = session.declined ? `<p role="alert">Your card was declined. Try again or use another card.</p>` : '';
    send(ctx, page('Checkout', `<h1>Subscribe to ${escape(items.map((price) => price.nickname).join(', '))}</h1>
<p>${usd(amount)} per month${session.customerEmail ? `, billed to ${escape(session.customerEmail)}` : ''}. Test card 4242 4242 4242 4242.</p>${declined}
<form method="post" action="/pay/${escape(session.id)}/pay"><button type="submit">Pay</button></form>
<form method="post" action="/pay/${escape(session.id)}/cancel"><button type="submit" class="secondary">Cancel</button></form>`));
  });
  router.post('/pay/:id/pay', (ctx) => {
    const session = world.session(ctx.params.id);
    const { paid } = payCheckout(world, session);
    if (!paid) return ctx.redirect(`/pay/${session.id}`);
    ctx.status = 303;
    ctx.redirect(session.successUrl!.replaceAll('{CHECKOUT_SESSION_ID}', session.id));
  });
  // Stripe's Checkout has a back link to cancel_url; the session stays open until it expires.
  router.post('/pay/:id/cancel', (ctx) => {
    const session = world.session(ctx.params.id);
    ctx.status = 303;
    ctx.redirect(session.cancelUrl ?? '/');
  });

  router.get('/portal/:id', (ctx) => {
    const session = portalSession(world, ctx.params.id);
    const subs = [...world.subscriptions.values()].filter((sub) => sub.customer === session.customer && sub.status !== 'canceled');
    const invoices = [...world.invoices.values()].filter((invoice) => invoice.customer === session.customer).sort((a, b) => b.created - a.created);
    const notice = typeof ctx.query.notice === 'string' ? `<p role="status">${escape(ctx.query.notice)}</p>` : '';
    const back = session.returnUrl ? `<p><a href="${escape(session.returnUrl)}">Return to the app</a></p>` : '';
    send(ctx, page('Billing portal', `<h1>Billing</h1>${notice}${subs.map((sub) => subscriptionSection(world, session.id, sub)).join('') || '<p>No active subscription.</p>'}
<h2>Payment method</h2><p>${world.customer(session.customer).hasCard ? 'Visa ending in 4242' : 'No card on file.'}</p>
<h2>Invoices</h2><table aria-label="Invoices"><thead><tr><th scope="col">Date</th><th scope="col">Number</th><th scope="col">Amount</th><th scope="col">Status</th></tr></thead><tbody>
${invoices.map((invoice) => `<tr><td>${day(invoice.created)}</td><td>${escape(invoice.number)}</td><td>${usd(Math.max(0, invoiceTotal(invoice)))}</td><td>${escape(invoice.status)}</td></tr>`).join('')}</tbody></table>${back}`));
  });
  router.post('/portal/:id/subscriptions/:sub/change', (ctx) => {
    const session = portalSession(world, ctx.params.id);
    const sub = portalSubscription(world, session.customer, ctx.params.sub);
    const priceId = String((ctx.request as { body?: Record<string, unknown> }).body?.price ?? '');
    const current = world.price(sub.item.price, 'price');
    const next = world.price(priceId, 'price');
    let notice: string;
    // The portal as configured for this product: upgrades now with prorations invoiced at once,
    // downgrades at the period's end (`schedule_at_period_end`, docs.stripe.com/customer-management/configure-portal).
    if (next.unit_amount > current.unit_amount) {
      if (sub.schedule) releaseSchedule(world, world.schedule(sub.schedule));
      changePrice(world, sub, next.id, 'always_invoice', 'pending_if_incomplete', null);
      notice = sub.pendingUpdate ? 'Your card was declined; the plan did not change.' : `Changed to ${next.nickname}.`;
    } else if (next.unit_amount < current.unit_amount) {
      const schedule = sub.schedule ? world.schedule(sub.schedule) : scheduleFromSubscription(world, sub);
      updateSchedulePhases(world, schedule, [
        { startDate: sub.item.periodStart, endDate: sub.item.periodEnd, items: [{ price: current.id, quantity: 1 }], prorationBehavior: 'none' },
        { startDate: null, endDate: null, items: [{ price: next.id, quantity: 1 }], prorationBehavior: 'none' },
      ], 'release');
      notice = `${next.nickname} starts on ${day(sub.item.periodEnd)}.`;
    } else {
      notice = 'That is the current plan.';
    }
    ctx.redirect(`/portal/${session.id}?notice=${encodeURIComponent(notice)}`);
  });
  router.post('/portal/:id/subscriptions/:sub/cancel', (ctx) => {
    const session = portalSession(world, ctx.params.id);
    const sub = portalSubscription(world, session.customer, ctx.params.sub);
    if (sub.schedule) releaseSchedule(world, world.schedule(sub.schedule));
    setCancelAtPeriodEnd(world, sub, true);
    ctx.redirect(`/portal/${session.id}?notice=${encodeURIComponent(`Your plan ends on ${day(sub.item.periodEnd)}.`)}`);
  });
  router.post('/portal/:id/subscriptions/:sub/renew', (ctx) => {
    const session = portalSession(world, ctx.params.id);
    const sub = portalSubscription(world, session.customer, ctx.params.sub);
    if (sub.schedule) releaseSchedule(world, world.schedule(sub.schedule));
    if (sub.cancelAtPeriodEnd) setCancelAtPeriodEnd(world, sub, false);
    ctx.redirect(`/portal/${session.id}?notice=${encodeURIComponent('Your plan continues.')}`);
  });

  return router;
}

function portalSession(world: StripeWorld, id: string) {
  const session = world.portalSessions.get(id);
  if (!session) throw new StripeApiError(404, 'invalid_request_error', `No such billing portal session: '${id}'`, { code: 'resource_missing' });
  return session;
}

function portalSubscription(world: StripeWorld, customer: string, id: string): SubscriptionRecord {
  const sub = world.subscription(id);
  if (sub.customer !== customer) throw new StripeApiError(404, 'invalid_request_error', `No such subscription: '${id}'`, { code: 'resource_missing' });
  return sub;
}

function subscriptionSection(world: StripeWorld, sessionId: string, sub: SubscriptionRecord): string {
  const price = world.price(sub.item.price, 'price');
  const schedule = sub.schedule ? world.schedule(sub.schedule) : null;
  const nextPhase = schedule?.phases.find((phase) => phase.startDate >= sub.item.periodEnd);
  const pending = sub.cancelAtPeriodEnd
    ? `<p>Cancels on ${day(sub.item.periodEnd)}.</p>`
    : nextPhase
      ? `<p>Changes to ${escape(world.price(nextPhase.items[0]!.price, 'price').nickname)} on ${day(nextPhase.startDate)}.</p>`
      : `<p>Renews on ${day(sub.item.periodEnd)}.</p>`;
  const options = [...world.prices.values()]
    .map((option) => `<option value="${escape(option.id)}"${option.id === price.id ? ' selected' : ''}>${escape(option.nickname)}, ${usd(option.unit_amount)} / month</option>`)
    .join('');
  const base = `/portal/${escape(sessionId)}/subscriptions/${escape(sub.id)}`;
  const status = sub.status === 'past_due' ? `<p role="alert">The last payment failed; Stripe will retry it.</p>` : '';
  return `<h2>Current plan</h2><p>${escape(price.nickname)}, ${usd(price.unit_amount)} per month.</p>${status}${pending}
<form method="post" action="${base}/change"><label for="price-${escape(sub.id)}">New plan</label> <select id="price-${escape(sub.id)}" name="price">${options}</select> <button type="submit">Change plan</button></form>
${sub.cancelAtPeriodEnd || nextPhase
  ? `<form method="post" action="${base}/renew"><button type="submit">Keep current plan</button></form>`
  : `<form method="post" action="${base}/cancel"><button type="submit" class="secondary">Cancel plan</button></form>`}`;
}
