import { describe, expect, it } from 'vitest';
import { listSecondsLeft } from '../../domain/lists/time-left.ts';

// A 20-row list of 2-second rows said "about 2 minutes left", then
// "about 1 minute", and ended 6.4 s after Start. The time left comes from the
// list's own finished rows, laid out on the 8 rows it runs at once.
describe('the time left of a running list', () => {
  it('makes no guess before a row of the list has finished', () => {
    expect(listSecondsLeft({ finishedSeconds: [], runningSeconds: [1, 1, 1, 1, 1, 1, 1, 1], waiting: 12, inFlight: 8 })).toBeNull();
    expect(listSecondsLeft({ finishedSeconds: [2], runningSeconds: [], waiting: 0, inFlight: 8 })).toBeNull();
  });

  it('says seconds, not minutes, for the issue\'s 20 rows of 2 s once the first 8 are done', () => {
    // 8 done in 2 s each, the next 8 started 0.5 s ago, 4 waiting: 1.5 s for the 8 in flight, then 2 s for the last 4.
    const left = listSecondsLeft({ finishedSeconds: [2, 2, 2.1, 1.9, 2, 2, 2, 2], runningSeconds: Array(8).fill(0.5), waiting: 4, inFlight: 8 });
    expect(left).toBe(4);
  });

  it('lays the waiting rows on the slots as the rows in flight free them', () => {
    // Median 10 s; slots free after 9, 5 and 0 s (one slot idle); 4 rows waiting: 0+10, 5+10, 9+10, 10+10 → 20 s.
    expect(listSecondsLeft({ finishedSeconds: [8, 10, 30], runningSeconds: [1, 5], waiting: 4, inFlight: 3 })).toBe(20);
    // A 1,000-row list of 20-second rows, 8 at once: 125 waves.
    expect(listSecondsLeft({ finishedSeconds: [20], runningSeconds: Array(8).fill(0), waiting: 992, inFlight: 8 })).toBe(2_500);
  });

  it('never says less than a second, and takes a row past the median as ending now', () => {
    expect(listSecondsLeft({ finishedSeconds: [3], runningSeconds: [7], waiting: 0, inFlight: 8 })).toBe(1);
    expect(listSecondsLeft({ finishedSeconds: [3, 5], runningSeconds: [7, 1], waiting: 0, inFlight: 8 })).toBe(3);
  });
});
