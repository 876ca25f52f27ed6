import { Client, Connection } from '@temporalio/client';

type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']>[number];

const millis = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.round((time?.nanos ?? 0) / 1e6);

/** Mean of the finite values: a history read before its workflow closed has no completion to measure to. */
const meanOf = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return Math.round((finite.reduce((sum, v) => sum + v, 0) / finite.length) * 10) / 10;
};

/** The history events of each given workflow, in order, over one connection. */
async function fetchHistories(address: string, workflowIds: string[]): Promise<HistoryEvent[][]> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const histories: HistoryEvent[][] = [];
    for (const workflowId of workflowIds) histories.push((await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []);
    return histories;
  } finally {
    await connection.close();
  }
}

/** Mean gap between consecutive history events of the given workflows: where Temporal's time goes. */
export async function profileHistories(address: string, workflowIds: string[]): Promise<Array<[string, number]>> {
  const gaps = new Map<string, number[]>();
  for (const events of await fetchHistories(address, workflowIds)) {
    let previous: { name: string; ms: number } | null = null;
    for (const event of events) {
      const ms = millis(event.eventTime);
      const name = eventName(event);
      if (previous) {
        const step = `${previous.name} → ${name}`;
        gaps.set(step, [...(gaps.get(step) ?? []), ms - previous.ms]);
      }
      previous = { name, ms };
    }
  }
  return [...gaps].map(([step, values]): [string, number] => [step, meanOf(values)]);
}

function eventName(event: object): string {
  const attributes = Object.keys(event).find((key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key]);
  const base = attributes?.replace(/EventAttributes$/, '') ?? 'event';
  const activity = (event as { activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } }).activityTaskScheduledEventAttributes?.activityType?.name;
  return activity ? `${base}(${activity})` : base;
}

export interface JobTimeline {
  /** Workflow started → the job's plan read (startResearch done). */
  planMs: number;
  /** Plan read → the last enrichment lookup done: the provider chains (their critical path is the job's minus one model call). */
  lookupsMs: number;
  /** Last lookup done → generateInsights scheduled. */
  toInsightsMs: number;
  /** generateInsights scheduled → completed: the model call. */
  insightsMs: number;
  /** generateInsights completed → workflow completed (finishResearch and the last workflow task). */
  finishMs: number;
  /** Per job: workflow tasks completed, activity tasks scheduled, local activities run (what the CPU is paid per). */
  workflowTasks: number;
  activityTasks: number;
  localActivities: number;
}

const LOOKUPS = new Set(['lookupParts', 'fetchPerson', 'fetchPersonPosts', 'fetchCompany', 'fetchCompanyPosts', 'fetchCompanyNews', 'fetchDecisionMakers', 'detectTechnologies', 'planCompany']);

/**
 * When each activity of a history finished, by type: a regular activity at its
 * completion event; a local activity (recorded as a marker when its workflow
 * task completes) at the completion time its marker holds.
 */
function activityEnds(events: HistoryEvent[]): Array<{ type: string; scheduledMs: number | null; doneMs: number }> {
  const scheduled = new Map<string, { type: string; ms: number }>();
  const ends: Array<{ type: string; scheduledMs: number | null; doneMs: number }> = [];
  for (const event of events) {
    const schedule = event.activityTaskScheduledEventAttributes;
    if (schedule) scheduled.set(String(event.eventId), { type: schedule.activityType?.name ?? '?', ms: millis(event.eventTime) });
    const done = event.activityTaskCompletedEventAttributes;
    const origin = done ? scheduled.get(String(done.scheduledEventId)) : undefined;
    if (origin) ends.push({ type: origin.type, scheduledMs: origin.ms, doneMs: millis(event.eventTime) });
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : null;
    if (data) {
      const details = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string; complete_time: { seconds: number; nanos: number } };
      ends.push({ type: details.activity_type, scheduledMs: null, doneMs: millis(details.complete_time) });
    }
  }
  return ends;
}

/** Mean phases of the given workflows' histories: what the critical path does not account for. */
export async function jobTimelines(address: string, workflowIds: string[]): Promise<JobTimeline> {
  const phases = (await fetchHistories(address, workflowIds)).map((events): JobTimeline => {
    const started = millis(events.find((event) => event.workflowExecutionStartedEventAttributes)?.eventTime);
    const completedEvent = events.find((event) => event.workflowExecutionCompletedEventAttributes);
    const completed = completedEvent ? millis(completedEvent.eventTime) : NaN;
    const ends = activityEnds(events);
    const planned = ends.find((end) => end.type === 'startResearch')?.doneMs ?? NaN;
    const lookupsDone = Math.max(...ends.filter((end) => LOOKUPS.has(end.type)).map((end) => end.doneMs));
    const insights = ends.find((end) => end.type === 'generateInsights');
    const count = (has: (event: HistoryEvent) => unknown) => events.filter(has).length;
    return {
      workflowTasks: count((event) => event.workflowTaskCompletedEventAttributes),
      activityTasks: count((event) => event.activityTaskScheduledEventAttributes),
      localActivities: count((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
      planMs: planned - started,
      lookupsMs: lookupsDone - planned,
      toInsightsMs: (insights?.scheduledMs ?? NaN) - lookupsDone,
      insightsMs: (insights?.doneMs ?? NaN) - (insights?.scheduledMs ?? NaN),
      finishMs: completed - (insights?.doneMs ?? NaN),
    };
  });
  const mean = (phase: keyof JobTimeline) => meanOf(phases.map((timeline) => timeline[phase]));
  return {
    planMs: mean('planMs'),
    lookupsMs: mean('lookupsMs'),
    toInsightsMs: mean('toInsightsMs'),
    insightsMs: mean('insightsMs'),
    finishMs: mean('finishMs'),
    workflowTasks: mean('workflowTasks'),
    activityTasks: mean('activityTasks'),
    localActivities: mean('localActivities'),
  };
}
