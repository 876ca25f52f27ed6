const DAY_MS = 24 * 60 * 60 * 1000;

/** A clock the tests can move forward (cache TTLs, billing cycles). Starts at real time. */
export function createTestClock() {
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  return {
    now,
    advanceDays(days: number) {
      offsetMs += days * DAY_MS;
    },
    reset() {
      offsetMs = 0;
    },
  };
}

export type TestClock = ReturnType<typeof createTestClock>;
