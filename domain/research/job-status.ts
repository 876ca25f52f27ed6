// Job states (docs/api.md#job-states). Plain constants: the dashboard's browser bundle imports them too.
export const RESEARCH_JOB_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type ResearchJobStatus = (typeof RESEARCH_JOB_STATUSES)[number];

/** `completed` and `failed` are final: nothing changes a job in them again. */
export const hasEnded = (status: ResearchJobStatus): boolean => status === 'completed' || status === 'failed';
