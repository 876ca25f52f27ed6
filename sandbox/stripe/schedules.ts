// Subscription schedules (docs.stripe.com/billing/subscriptions/subscription-schedules):
// made from a subscription, phases replaced, released.

import { invalidParam, missingParam, StripeApiError } from './errors.ts';
import { newId, type ScheduleRecord, type SubscriptionRecord } from './records.ts';
import { addMonths } from './periods.ts';
import { changedFields, type ProrationBehavior, type StripeWorld } from './world.ts';

export function scheduleFromSubscription(world: StripeWorld, sub: SubscriptionRecord): ScheduleRecord {
  world.requireLive(sub);
  if (sub.schedule) throw new StripeApiError(400, 'invalid_request_error', `You cannot migrate a subscription that is already attached to a schedule: \`${sub.schedule}\`.`, { param: 'from_subscription' });
  const before = world.subscriptionJson(sub);
  const schedule: ScheduleRecord = {
    id: newId('sub_sched'),
    created: world.now(),
    customer: sub.customer,
    subscription: sub.id,
    status: 'active',
    phases: [{ startDate: sub.item.periodStart, endDate: sub.item.periodEnd, items: [{ price: sub.item.price, quantity: sub.item.quantity }], prorationBehavior: 'create_prorations' }],
    endBehavior: 'release',
    releasedAt: null,
    releasedSubscription: null,
    metadata: {},
  };
  world.schedules.set(schedule.id, schedule);
  sub.schedule = schedule.id;
  world.emit('subscription_schedule.created', world.scheduleJson(schedule));
  world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)));
  return schedule;
}

/**
 * Replaces the phases. As Stripe requires, the current phase keeps its start;
 * a phase without an end lasts one billing interval (`iterations` 1).
 */
export function updateSchedulePhases(world: StripeWorld, schedule: ScheduleRecord, phases: Array<{ startDate: number | null; endDate: number | null; items: Array<{ price: string; quantity: number }>; prorationBehavior: ProrationBehavior }>, endBehavior: 'release' | 'cancel' | null): void {
  if (schedule.status !== 'active' && schedule.status !== 'not_started') {
    throw new StripeApiError(400, 'invalid_request_error', `You cannot update a subscription schedule that is ${schedule.status}.`);
  }
  const current = schedule.phases[0]!;
  const next: ScheduleRecord['phases'] = [];
  let start = phases[0]?.startDate ?? current.startDate;
  if (start !== current.startDate) throw invalidParam('phases[0][start_date]', 'You can not modify the start date of the current phase.');
  phases.forEach((phase, index) => {
    if (phase.items.length === 0) throw missingParam(`phases[${index}][items]`);
    phase.items.forEach((item, itemIndex) => world.price(item.price, `phases[${index}][items][${itemIndex}][price]`));
    if (index > 0 && phase.startDate !== null && phase.startDate !== start) {
      throw invalidParam(`phases[${index}][start_date]`, 'Phases must be contiguous: a phase starts where the previous one ends.');
    }
    const end = phase.endDate ?? addMonths(start, 1);
    if (end <= start) throw invalidParam(`phases[${index}][end_date]`, 'The end date of a phase must be after its start date.');
    next.push({ startDate: start, endDate: end, items: phase.items, prorationBehavior: phase.prorationBehavior });
    start = end;
  });
  schedule.phases = next;
  if (endBehavior) schedule.endBehavior = endBehavior;
  world.emit('subscription_schedule.updated', world.scheduleJson(schedule));
}

export function releaseSchedule(world: StripeWorld, schedule: ScheduleRecord, how: 'released' | 'canceled' = 'released'): void {
  if (schedule.status !== 'active' && schedule.status !== 'not_started') {
    throw new StripeApiError(400, 'invalid_request_error', `You cannot release a subscription schedule that is currently in the \`${schedule.status}\` status.`);
  }
  const sub = world.subscription(schedule.subscription);
  const before = world.subscriptionJson(sub);
  schedule.status = how;
  schedule.releasedAt = world.now();
  schedule.releasedSubscription = how === 'released' ? sub.id : null;
  sub.schedule = null;
  world.emit(how === 'released' ? 'subscription_schedule.released' : 'subscription_schedule.canceled', world.scheduleJson(schedule));
  if (sub.status !== 'canceled') world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)));
}

