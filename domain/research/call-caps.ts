/**
 * Provider and model calls one account may have in flight at once, per
 * research worker process (PROVIDER_CALLS_PER_ACCOUNT, MODEL_CALLS_PER_ACCOUNT;
 * docs/deploy.md#fairness-between-accounts). A call over the cap waits inside
 * its activity for one of the account's own calls to end; other accounts'
 * calls pass. The wait counts against the job's deadline, never against a
 * part's attempt timeout.
 *
 * The defaults are about three times what one account keeps in flight when it
 * alone drives a 2-core worker at full speed (about 3.5 jobs a second: some 20
 * provider calls of 0.3 to 0.8 s and 10 model calls of 1.5 s), so an account
 * working alone is not slowed on such a worker, while on a large one (400
 * activity slots, room for well over a thousand calls) one account's burst
 * holds at most these many of the providers' and the model's connections.
 */
export const DEFAULT_PROVIDER_CALLS_PER_ACCOUNT = 64;
export const DEFAULT_MODEL_CALLS_PER_ACCOUNT = 32;

export interface CallCaps {
  /** Enrichment parts asking their providers at once (a part asks one provider at a time), or fetching a website. */
  providerCallsPerAccount: number;
  /** Chat-completion calls at once (a job's AI step makes up to two side by side). */
  modelCallsPerAccount: number;
}
