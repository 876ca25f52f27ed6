// A queued job's wait behind its own account's jobs (domain/research/queue-estimate.ts).
import { expect, it } from 'vitest';
import { jobQueueWait } from '../../domain/research/queue-estimate.ts';

it('counts the jobs ahead and serves them in rounds of those processing now, then this one', () => {
  // 12 queued ahead, 4 processing: three rounds, then this job's own: 4 × 10 s.
  expect(jobQueueWait({ queuedAhead: 12, processing: 4, medianSeconds: 10 })).toEqual({ jobsAhead: 16, estimatedSeconds: 40 });
  // Nothing processing yet: one at a time, as far as anyone can tell.
  expect(jobQueueWait({ queuedAhead: 2, processing: 0, medianSeconds: 8 })).toEqual({ jobsAhead: 2, estimatedSeconds: 24 });
  expect(jobQueueWait({ queuedAhead: 0, processing: 0, medianSeconds: 8 })).toEqual({ jobsAhead: 0, estimatedSeconds: 8 });
});
