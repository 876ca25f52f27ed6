import { Client, Connection } from '@temporalio/client';

/** Mean gap between consecutive history events of the given workflows: where Temporal's time goes. */
export async function profileHistories(address: string, workflowIds: string[]): Promise<Array<[string, number]>> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const gaps = new Map<string, number[]>();
    for (const workflowId of workflowIds) {
      const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
      let previous: { name: string; ms: number } | null = null;
      for (const event of events ?? []) {
        const ms = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
        const name = eventName(event);
        if (previous) {
          const step = `${previous.name} → ${name}`;
          gaps.set(step, [...(gaps.get(step) ?? []), ms - previous.ms]);
        }
        previous = { name, ms };
      }
    }
    return [...gaps].map(([step, values]): [string, number] => [step, Math.round((values.reduce((sum, v) => sum + v, 0) / values.length) * 10) / 10]);
  } finally {
    await connection.close();
  }
}

function eventName(event: object): string {
  const attributes = Object.keys(event).find((key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key]);
  const base = attributes?.replace(/EventAttributes$/, '') ?? 'event';
  const activity = (event as { activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } }).activityTaskScheduledEventAttributes?.activityType?.name;
  return activity ? `${base}(${activity})` : base;
}

export interface JobTimeline {
  /** Workflow started → first activity scheduled (first workflow task, startResearch as a local activity). */
  startMs: number;
  /** Scheduled → completed, per activity type, mean over the jobs' runs of it. */
  activityMs: Record<string, number>;
  /** Last provider activity completed → generateInsights scheduled. */
  toInsightsMs: number;
  /** generateInsights completed → workflow completed (finishResearch and the last workflow task). */
  finishMs: number;
}

/** Mean phases of the given workflows' histories: what the critical path does not account for. */
export async function jobTimelines(address: string, workflowIds: string[]): Promise<JobTimeline> {
  const connection = await Connection.connect({ address });
  const sums = { startMs: 0, toInsightsMs: 0, finishMs: 0 };
  const activities = new Map<string, number[]>();
  try {
    const client = new Client({ connection });
    for (const workflowId of workflowIds) {
      const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
      const at = (event: (typeof events & object)[number]) => Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
      const scheduled = new Map<string, { type: string; ms: number }>();
      let started = NaN;
      let firstScheduled = NaN;
      let lastProviderCompleted = 0;
      let insightsScheduled = NaN;
      let insightsCompleted = NaN;
      let completed = NaN;
      for (const event of events ?? []) {
        const ms = at(event);
        if (event.workflowExecutionStartedEventAttributes) started = ms;
        if (event.workflowExecutionCompletedEventAttributes) completed = ms;
        const schedule = event.activityTaskScheduledEventAttributes;
        if (schedule) {
          const type = schedule.activityType?.name ?? '?';
          scheduled.set(String(event.eventId), { type, ms });
          if (Number.isNaN(firstScheduled)) firstScheduled = ms;
          if (type === 'generateInsights') insightsScheduled = ms;
        }
        const done = event.activityTaskCompletedEventAttributes;
        if (done) {
          const origin = scheduled.get(String(done.scheduledEventId));
          if (!origin) continue;
          activities.set(origin.type, [...(activities.get(origin.type) ?? []), ms - origin.ms]);
          if (origin.type === 'generateInsights') insightsCompleted = ms;
          else if (origin.type.startsWith('fetch') || origin.type === 'detectTechnologies') lastProviderCompleted = Math.max(lastProviderCompleted, ms);
        }
      }
      sums.startMs += firstScheduled - started;
      sums.toInsightsMs += insightsScheduled - lastProviderCompleted;
      sums.finishMs += completed - insightsCompleted;
    }
  } finally {
    await connection.close();
  }
  const mean = (total: number) => Math.round((total / workflowIds.length) * 10) / 10;
  return {
    startMs: mean(sums.startMs),
    activityMs: Object.fromEntries([...activities].map(([type, values]) => [type, Math.round((values.reduce((s, v) => s + v, 0) / values.length) * 10) / 10])),
    toInsightsMs: mean(sums.toInsightsMs),
    finishMs: mean(sums.finishMs),
  };
}
