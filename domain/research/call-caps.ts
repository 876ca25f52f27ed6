/**
 * Provider and model calls one account may have in flight at once, per
 * research worker process (PROVIDER_CALLS_PER_ACCOUNT, MODEL_CALLS_PER_ACCOUNT;
 * docs/deploy.md#fairness-between-accounts). A call over the cap waits inside
 * its activity for one of the account's own calls to end; other accounts'
 * calls pass. The wait counts against the job's deadline, never against a
 * part's attempt timeout.
 *
 * The defaults sit above what one account keeps in flight when it alone
 * drives a 2-core worker at full speed (200 uncached jobs in flight: up to
 * about 370 provider and 210 model calls, docs/benchmarks.md), so they never
 * slow an account working alone there: a cap that did would only slow it,
 * with no one to gain (measured: at 64 and 32, 200 jobs in flight
 * took twice as long, and a third more CPU per job). On a larger worker (400 activity slots: room for some 1,600
 * provider and 800 model calls) they keep one account's burst from holding
 * all of the providers' and the model's connections.
 */
export const DEFAULT_PROVIDER_CALLS_PER_ACCOUNT = 512;
export const DEFAULT_MODEL_CALLS_PER_ACCOUNT = 256;

export interface CallCaps {
  /** Enrichment parts asking their providers at once (a part asks one provider at a time), or fetching a website. */
  providerCallsPerAccount: number;
  /** Chat-completion calls at once (a job's AI step makes up to two side by side). */
  modelCallsPerAccount: number;
}
