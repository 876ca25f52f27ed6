import { describe, expect, it } from 'vitest';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { addMonths, periodAfter, prorationLines } from '../../sandbox/stripe/periods.ts';

// The stand-in's periods (Stripe's documented billing_cycle_anchor rule) and our
// billing cycles (docs/decisions.md#plans) must agree to the second: a renewal the
// webhook applies and the cycle the API rolls into are then one and the same.

const seconds = (iso: string) => Date.parse(iso) / 1000;
const iso = (unix: number) => new Date(unix * 1000).toISOString();

describe('billing periods', () => {
  it.each(['2026-01-31T10:15:30Z', '2026-03-30T00:00:00Z', '2027-01-29T23:59:59Z', '2026-05-15T12:00:00Z'])('anchored at %s, twelve periods match the cycles', (anchorIso) => {
    const anchor = seconds(anchorIso);
    let end = addMonths(anchor, 1);
    for (let month = 1; month <= 12; month += 1) {
      const cycle = billingCycleAt(new Date(anchor * 1000), new Date(end * 1000));
      const next = periodAfter(anchor, end);
      expect([iso(next.start), iso(next.end)]).toEqual([cycle.start.toISOString(), cycle.end.toISOString()]);
      end = next.end;
    }
  });

  it('a 31st falls back to the month\'s last day and returns to the 31st', () => {
    const anchor = seconds('2026-01-31T08:00:00Z');
    expect([1, 2, 3].map((months) => iso(addMonths(anchor, months)))).toEqual(['2026-02-28T08:00:00.000Z', '2026-03-31T08:00:00.000Z', '2026-04-30T08:00:00.000Z']);
  });

  it('prorates to whole cents for the rest of the period', () => {
    const period = { start: 0, end: 30 * 86_400 };
    expect(prorationLines(4_900, 14_900, period, 10 * 86_400)).toEqual({ credit: -3_267, charge: 9_933 });
    expect(prorationLines(4_900, 14_900, period, 0)).toEqual({ credit: -4_900, charge: 14_900 });
  });
});
