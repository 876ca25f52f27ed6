import { describe, expect, it } from 'vitest';
import { nextAttemptDelayMs, WEBHOOK_RETRY } from '../../domain/webhooks/contract.ts';
import { retryAfterMs } from '../../integrations/webhooks/retry-after.ts';

const now = new Date('1994-11-06T08:49:00.000Z');

describe('Retry-After', () => {
  it('reads seconds and the three HTTP-date forms, relative to now', () => {
    expect(retryAfterMs('25', now)).toBe(25_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(37_000);
    expect(retryAfterMs('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(37_000);
    // asctime has no zone and means GMT, whatever the machine's zone.
    expect(retryAfterMs('Sun Nov  6 08:49:37 1994', now)).toBe(37_000);
    // A date already past asks for no wait.
    expect(retryAfterMs('Sun, 06 Nov 1994 08:00:00 GMT', now)).toBe(0);
  });

  it('ignores an absent or malformed header', () => {
    for (const value of [null, undefined, '', '  ', '-5', '1.5', '25 s', 'soon', 'Sun, 06 Nov 1994 08:49:37', '06 Nov 1994 08:49:37 GMT']) {
      expect(retryAfterMs(value, now), String(value)).toBeNull();
    }
  });
});

describe('the delay before the next attempt', () => {
  it('follows the schedule (10 s, 20 s, 40 s … at most an hour) when the endpoint asks nothing', () => {
    expect([1, 2, 3, 4].map((attempt) => nextAttemptDelayMs(attempt, null))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(nextAttemptDelayMs(20, null)).toBe(WEBHOOK_RETRY.maximumIntervalMs);
  });

  it('waits what Retry-After asks when that is longer, never less than the schedule, never more than an hour', () => {
    expect(nextAttemptDelayMs(1, 25_000)).toBe(25_000);
    expect(nextAttemptDelayMs(3, 25_000)).toBe(40_000);
    expect(nextAttemptDelayMs(1, 0)).toBe(10_000);
    expect(nextAttemptDelayMs(1, 86_400_000)).toBe(60 * 60_000);
    expect(nextAttemptDelayMs(1, Number.POSITIVE_INFINITY)).toBe(60 * 60_000);
  });
});
