// Monthly billing periods as Stripe documents them for `billing_cycle_anchor`:
// each period starts on the anchor's day of the month, or on the month's last
// day when it is shorter (docs.stripe.com/billing/subscriptions/billing-cycle).

/** The anchor moved `months` months on, clamped to the last day of the target month; times in Unix seconds. */
export function addMonths(anchorSeconds: number, months: number): number {
  const anchor = new Date(anchorSeconds * 1000);
  const total = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds()) / 1000;
}

/** The period that follows one ending at `end`, for a subscription anchored at `anchor`. */
export function periodAfter(anchor: number, end: number): { start: number; end: number } {
  let months = 1;
  while (addMonths(anchor, months) <= end) months += 1;
  return { start: end, end: addMonths(anchor, months) };
}

/**
 * Stripe's proration for a price change at `at` within [start, end): a credit
 * for the unused time on the old price and a charge for the rest on the new
 * one, each rounded to whole cents (docs.stripe.com/billing/subscriptions/prorations).
 */
export function prorationLines(oldAmount: number, newAmount: number, period: { start: number; end: number }, at: number): { credit: number; charge: number } {
  const share = Math.max(0, Math.min(1, (period.end - at) / (period.end - period.start)));
  return { credit: -Math.round(oldAmount * share), charge: Math.round(newAmount * share) };
}
