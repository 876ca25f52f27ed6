// Billing cycles start on the subscription day each month; a day the month does
// not have (29–31) falls back to that month's last day (docs/decisions.md#plans).

const DAY_MS = 24 * 60 * 60 * 1000;

export interface BillingCycle {
  start: Date;
  end: Date;
}

/** The cycle containing `now` for an account subscribed at `anchor` (UTC). */
export function billingCycleAt(anchor: Date, now: Date): BillingCycle {
  let year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  let start = cycleStartIn(anchor, year, month);
  if (start > now) {
    month -= 1;
    if (month < 0) {
      month = 11;
      year -= 1;
    }
    start = cycleStartIn(anchor, year, month);
  }
  const nextMonth = month === 11 ? { year: year + 1, month: 0 } : { year, month: month + 1 };
  return { start, end: cycleStartIn(anchor, nextMonth.year, nextMonth.month) };
}

function cycleStartIn(anchor: Date, year: number, month: number): Date {
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds()));
}

/** Share of the cycle still ahead of `now`, in [0, 1], by whole and partial days. */
export function cycleShareLeft(cycle: BillingCycle, now: Date): number {
  const total = (cycle.end.getTime() - cycle.start.getTime()) / DAY_MS;
  const left = (cycle.end.getTime() - now.getTime()) / DAY_MS;
  return Math.min(1, Math.max(0, left / total));
}
