// The time left of a running list (the Lists page's "about 3 minutes left").
// Rows run a fixed number at a time, so the list ends when its last row does:
// the rows still waiting are laid out on the run's slots as the rows in flight
// free them, each taking as long as this list's finished rows took (their
// median). Guessed from other jobs (the account's API calls, the default of
// 30 s), a 20-row list of 2-second rows once said "about 2 minutes left" and
// ended 6 s after Start: until a row of this list has finished there is no
// estimate.

export interface ListTimeLeftInput {
  /** How long each finished row of this list took, submitted to ended (completed or failed), in seconds. */
  finishedSeconds: number[];
  /** How long each row in flight has been running, in seconds. */
  runningSeconds: number[];
  /** Rows not yet started. */
  waiting: number;
  /** Rows the run keeps in flight at once. */
  inFlight: number;
}

/** Seconds until the list ends (at least 1), or null before any row of it has finished or when none is left. */
export function listSecondsLeft(input: ListTimeLeftInput): number | null {
  if (input.finishedSeconds.length === 0 || input.runningSeconds.length + input.waiting === 0) return null;
  const perRow = median(input.finishedSeconds);
  // When each slot is free again: a row in flight has used part of its time (one past it is taken to end now).
  const slots = input.runningSeconds.map((elapsed) => Math.max(0, perRow - elapsed));
  while (slots.length < input.inFlight) slots.push(0);
  for (let row = 0; row < input.waiting; row += 1) {
    const next = slots.indexOf(Math.min(...slots));
    slots[next] += perRow;
  }
  return Math.max(1, Math.ceil(Math.max(...slots)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
