// Entry point of the workflow bundle: every workflow the worker runs.
export { researchWorkflow } from './research-workflow.ts';
export { sweepStaleJobsWorkflow } from './sweep-stale-jobs.ts';
export { mailOutboxWorkflow } from './mail-outbox-workflow.ts';
export { purgeWorkflow } from './purge-workflow.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery-workflow.ts';
export { crmSyncWorkflow } from './crm-sync-workflow.ts';
export { listRunWorkflow } from './list-run-workflow.ts';
