// How long a queued list waits (the Lists page's "Queued: 2nd in line, 340 of
// your rows ahead, starts in about 4 minutes"). It starts when a run slot of
// the account frees: each running list ends once its rows left have run,
// `inFlight` at a time, each taking the account's recent median job time; the
// queued lists ahead of it take the first slots that free, in order. The
// median is the same one the API's `estimated_seconds` uses.

export interface QueueWaitInput {
  /** Rows still to run (pending or in flight) of each of the account's running lists. */
  runningRowsLeft: number[];
  /** Rows to run of each queued list ahead of this one, next to run first. */
  aheadRows: number[];
  /** The plan's lists running at once. */
  maxRunning: number;
  /** Rows one list keeps in flight at once. */
  inFlight: number;
  /** The account's recent median job time, seconds. */
  perRowSeconds: number;
}

export interface QueueWait {
  /** The account's rows that run before this list's first: running lists' rows left and the queued lists' ahead. */
  rowsAhead: number;
  /** Seconds until this list starts, at least 1. */
  startsInSeconds: number;
}

export function queueWait(input: QueueWaitInput): QueueWait {
  const runTime = (rows: number) => Math.ceil(rows / input.inFlight) * input.perRowSeconds;
  // When each of the account's run slots frees; a slot no list holds is free now.
  const slots = input.runningRowsLeft.map(runTime);
  while (slots.length < input.maxRunning) slots.push(0);
  for (const rows of input.aheadRows) {
    const next = slots.indexOf(Math.min(...slots));
    slots[next] += runTime(rows);
  }
  return {
    rowsAhead: [...input.runningRowsLeft, ...input.aheadRows].reduce((sum, rows) => sum + rows, 0),
    startsInSeconds: Math.max(1, Math.ceil(Math.min(...slots))),
  };
}
