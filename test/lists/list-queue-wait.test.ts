// A queued list's wait (domain/lists/queue-wait.ts): the first run slot of the
// account that frees, after the queued lists ahead of it took theirs.
import { expect, it } from 'vitest';
import { queueWait } from '../../domain/lists/queue-wait.ts';

it('waits for the running list on a one-list plan, then for each list ahead in turn', () => {
  // 40 rows left, 8 at a time, 10 s a row: 50 s; the list ahead (16 rows) 20 s more.
  expect(queueWait({ runningRowsLeft: [40], aheadRows: [], maxRunning: 1, inFlight: 8, perRowSeconds: 10 })).toEqual({ rowsAhead: 40, startsInSeconds: 50 });
  expect(queueWait({ runningRowsLeft: [40], aheadRows: [16], maxRunning: 1, inFlight: 8, perRowSeconds: 10 })).toEqual({ rowsAhead: 56, startsInSeconds: 70 });
});

it('takes the first of several running lists to end, and a free slot at once', () => {
  expect(queueWait({ runningRowsLeft: [80, 8, 40], aheadRows: [], maxRunning: 3, inFlight: 8, perRowSeconds: 5 }).startsInSeconds).toBe(5);
  // Slots free at 50, 5 and 25 s; the list ahead (15 s) takes the one at 5 s and ends at 20 s, before the 25 s one.
  expect(queueWait({ runningRowsLeft: [80, 8, 40], aheadRows: [24], maxRunning: 3, inFlight: 8, perRowSeconds: 5 }).startsInSeconds).toBe(20);
  expect(queueWait({ runningRowsLeft: [10], aheadRows: [], maxRunning: 3, inFlight: 8, perRowSeconds: 5 }).startsInSeconds).toBe(1);
});
