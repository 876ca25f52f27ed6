// A queued job's wait behind its own account's work (the job page's "Queued:
// 12 of your jobs are ahead; about 40 s"). The account's jobs are served a
// number at a time (those processing now: its share of the workers while
// others wait too); the jobs ahead go in rounds of that many, then this one,
// each round taking the account's recent median job time, the same median as
// the API's `estimated_seconds`.

export interface JobQueueInput {
  /** The account's jobs still queued, submitted before this one (of a priority served before it). */
  queuedAhead: number;
  /** The account's jobs processing now. */
  processing: number;
  /** The account's recent median job time, seconds. */
  medianSeconds: number;
}

export interface JobQueueWait {
  /** The account's jobs ahead of this one: processing now or queued before it. */
  jobsAhead: number;
  /** Seconds until this job should be done. */
  estimatedSeconds: number;
}

export function jobQueueWait(input: JobQueueInput): JobQueueWait {
  const atOnce = Math.max(1, input.processing);
  const rounds = Math.ceil(input.queuedAhead / atOnce) + 1;
  return { jobsAhead: input.queuedAhead + input.processing, estimatedSeconds: Math.max(1, Math.ceil(rounds * input.medianSeconds)) };
}
