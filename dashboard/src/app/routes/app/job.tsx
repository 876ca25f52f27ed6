import { Alert, Anchor, Button, Group, List, Loader, Stack, Text, ThemeIcon } from '@mantine/core';
import { Link, useParams } from 'react-router';
import type { z } from 'zod';
import type { JobDetail } from '../../../../../domain/dashboard/replies.ts';
import { RESEARCH_STAGES, type ResearchStage } from '../../../../../domain/research/contract.ts';
import type { ZResearchData } from '../../../../../domain/research/reply.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useJob } from '../../../features/jobs/api.ts';
import { JobResult } from '../../../features/jobs/components/job-result.tsx';
import { StatusBadge } from '../../../features/jobs/components/status-badge.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { traceAddress, useAppConfig } from '../../../lib/app-config.ts';
import { formatDateTime, formatDuration } from '../../../lib/format.ts';
import { formatWait } from '../../../lib/format-wait.ts';

const STAGE_LABELS: Record<ResearchStage, string> = {
  queued: 'Waiting for a worker',
  loading_cache: 'Reading stored data',
  fetching_data: 'Fetching data from providers',
  generating_insights: 'Writing insights',
  storing_results: 'Storing results',
  done: 'Done',
};

const FAILURE_REASONS: Record<string, string> = {
  timeout: 'The job took longer than 3 minutes and was stopped.',
  internal_error: 'The job failed because of an error on our side.',
};

export default function JobPage() {
  const { researchId = '' } = useParams();
  const job = useJob(researchId);
  const config = useAppConfig();
  // Another account's job and an unknown id read the same (no hint that it exists): a dead end with a way back, no Retry.
  if (job.error instanceof ApiError && job.error.status === 404) {
    return (
      <>
        <PageTitle>Job not found</PageTitle>
        <Text mb="md">There is no job {researchId} in this account. Check the link, or find the job in your list of jobs.</Text>
        <Button component={Link} to="/jobs" variant="default">
          Back to jobs
        </Button>
      </>
    );
  }
  return (
    <>
      <Anchor component={Link} to="/jobs" size="sm">
        Back to jobs
      </Anchor>
      <PageTitle>{job.data ? `Job for ${job.data.email}` : 'Job'}</PageTitle>
      <QueryState query={job} label="this job">
        {(detail) => (
          <Stack>
            <Group>
              <StatusBadge status={detail.status} />
              <Text size="sm">
                {detail.productName ?? 'No product'} · submitted {formatDateTime(detail.submittedAt)} · {formatDuration(detail.durationMs)} ·{' '}
                <code>{detail.id}</code>
              </Text>
              <TraceLink href={traceAddress(config.data, detail.traceId)} />
            </Group>
            <JobBody detail={detail} />
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** Where an operator follows the job through every process (the server's TRACE_UI_URL); nothing when there is no trace. */
function TraceLink({ href }: { href: string | null }) {
  if (!href) return null;
  return (
    <Anchor href={href} target="_blank" rel="noopener noreferrer" size="sm">
      Trace of this job (opens in a new tab)
    </Anchor>
  );
}

function JobBody({ detail }: { detail: JobDetail }) {
  if (detail.status === 'completed' && detail.result) {
    return <JobResult data={detail.result.data as z.infer<typeof ZResearchData>} meta={detail.result.meta} />;
  }
  if (detail.status === 'failed') {
    return (
      <Alert color="red" role="alert" title="This job failed">
        {FAILURE_REASONS[detail.error ?? ''] ?? `Error: ${detail.error}.`}{' '}
        {detail.isRefunded ? 'The credit was refunded.' : 'The credit was not refunded.'} You can submit the request again.
      </Alert>
    );
  }
  return <JobProgress detail={detail} />;
}

function JobProgress({ detail }: { detail: JobDetail }) {
  const current = detail.progress?.stage ?? (detail.status === 'queued' ? 'queued' : null);
  const currentIndex = current ? RESEARCH_STAGES.indexOf(current) : -1;
  return (
    <section aria-labelledby="progress-heading">
      <Text fw={600} id="progress-heading" mb="xs">
        Progress
      </Text>
      {detail.queue && (
        <Alert color="grape" title="Queued behind your own jobs" mb="sm">
          Queued: {detail.queue.jobsAhead === 1 ? '1 of your jobs is' : `${detail.queue.jobsAhead} of your jobs are`} ahead; {formatWait(detail.queue.estimatedSeconds)}, at the pace of
          your recent jobs. Other accounts&apos; jobs take turns with yours, so a burst of your own work waits behind itself, not behind theirs.
        </Alert>
      )}
      <div role="status" aria-live="polite">
        {current ? `${STAGE_LABELS[current]}…` : 'Running…'}
        {detail.progress && detail.progress.partsDone.length > 0 && ` Parts done: ${detail.progress.partsDone.join(', ')}.`}
      </div>
      <List mt="sm" spacing="xs" aria-label="Stages">
        {RESEARCH_STAGES.filter((stage) => stage !== 'done').map((stage, index) => (
          <List.Item
            key={stage}
            icon={
              index === currentIndex ? (
                <Loader size={14} aria-hidden />
              ) : (
                <ThemeIcon size={14} radius="xl" color={index < currentIndex ? 'teal' : 'gray'} aria-hidden>
                  <span />
                </ThemeIcon>
              )
            }
          >
            {STAGE_LABELS[stage]}
            {index < currentIndex ? ' (done)' : index === currentIndex ? ' (now)' : ''}
          </List.Item>
        ))}
      </List>
    </section>
  );
}
