/**
 * CRM runs of one account running at once (CRM_RUNS_PER_ACCOUNT); further
 * runs wait `queued` in the order they were asked for and start by themselves
 * (services/crm/run-turns.ts). One: an account has one CRM connection, so its
 * runs all draw on the same portal's API allowance, and a second run at once
 * would only split that allowance and double the account's research in
 * flight, finishing neither run sooner.
 */
export const DEFAULT_CRM_RUNS_PER_ACCOUNT = 1;

/** What a queued run's wait for its turn fails with while it must go on waiting (retried by Temporal, never the run's end). */
export const CRM_RUN_WAITING_TYPE = 'crm_run_waiting';
