import { z } from 'zod';

/**
 * Faults the sandbox can play, for tests and for trying the pipeline's
 * degradation by hand. `times` limits how many chat requests are affected
 * (then it answers normally again); without it the fault lasts until reset.
 */
export const ZModelFaults = z.object({
  mode: z.enum(['none', 'wrongSize', 'rateLimit', 'serverError', 'hang', 'down']),
  /** wrongSize: one item too many (`extra`) or one too few (`missing`) in every fixed-size list. */
  wrongSize: z.enum(['extra', 'missing']).default('extra'),
  /** rateLimit: the Retry-After header, in seconds. */
  retryAfterSeconds: z.number().min(0).max(60).default(1),
  times: z.number().int().positive().optional(),
});
export type ModelFaults = z.input<typeof ZModelFaults>;
/** Faults with their defaults filled in, as the sandbox plays them. */
export type ActiveFaults = z.output<typeof ZModelFaults>;

export const NO_FAULTS: ActiveFaults = ZModelFaults.parse({ mode: 'none' });

/** Holds the current fault and counts it down per affected request. */
export function createFaultState() {
  let current: ActiveFaults = NO_FAULTS;
  let remaining: number | undefined;
  return {
    set(faults: ModelFaults): void {
      current = ZModelFaults.parse(faults);
      remaining = current.times;
    },
    get(): ActiveFaults {
      return current;
    },
    /** The fault to play on this request, consuming one of `times`. */
    take(): ActiveFaults {
      if (current.mode === 'none') return current;
      if (remaining === undefined) return current;
      if (remaining <= 0) return NO_FAULTS;
      remaining -= 1;
      return current;
    },
  };
}
