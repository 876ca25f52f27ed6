import { Alert, Anchor, Badge, Button, Card, Group, Modal, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatCount } from '../../../../../domain/lists/fields.ts';
import { isListQueued, isListRunning, type ListCounts, type ListProgress, type ListQueueWait, type ListRowReply, type ListRowStatus, type ListStatus, type ListSummary } from '../../../../../domain/lists/lists.ts';
import { formatWait, ordinal } from '../../../lib/format-wait.ts';
import { FormError } from '../../../components/auth-layout.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { resultsUrl, useCancelList } from '../api.ts';
import { ScrollBox } from './scroll-box.tsx';

export const LIST_STATUS_WORDS: Record<ListStatus, { label: string; color: string }> = {
  draft: { label: 'Draft', color: 'gray' },
  queued: { label: 'Queued', color: 'grape' },
  running: { label: 'Running', color: 'blue' },
  cancelling: { label: 'Cancelling', color: 'yellow' },
  completed: { label: 'Finished', color: 'teal' },
  cancelled: { label: 'Cancelled', color: 'gray' },
  stopped_no_credits: { label: 'Stopped: no credits left', color: 'orange' },
};

const ROW_STATUS_WORDS: Record<ListRowStatus, string> = {
  pending: 'Waiting',
  running: 'Researching',
  completed: 'Completed',
  failed: 'Failed (refunded)',
  skipped: 'Skipped',
  not_charged: 'Not run (not charged)',
};

/** A list that ended (or is ending) before its rows all ran, in a word: its bar must not read as finished. */
const ENDED_EARLY_WORDS: Partial<Record<ListStatus, string>> = { cancelling: 'Cancelling', cancelled: 'Cancelled', stopped_no_credits: 'Stopped, no credits left' };
const isEndedEarly = (status: ListStatus) => ENDED_EARLY_WORDS[status] !== undefined;

/**
 * How far the list's bar is filled: rows ended of the rows to run; for a list
 * cancelled or stopped for credits, only the rows researched (its rows never
 * run would otherwise fill the bar like a finished list's).
 */
export function progressPercent(status: ListStatus, counts: Pick<ListCounts, 'toRun' | 'done' | 'failed' | 'notCharged'>): number {
  const researched = counts.done + counts.failed;
  const ended = isEndedEarly(status) ? researched : researched + counts.notCharged;
  if (counts.toRun === 0) return isEndedEarly(status) ? 0 : 100;
  return Math.round((ended / counts.toRun) * 100);
}

/** The bar's name: "List progress", and why a list that ended early did ("List progress (cancelled)"). */
export const progressName = (name: string, status: ListStatus) => (isEndedEarly(status) ? `${name} (${ENDED_EARLY_WORDS[status]!.toLowerCase()})` : name);

export function ListStatusBadge({ status }: { status: ListStatus }) {
  const { label, color } = LIST_STATUS_WORDS[status];
  return (
    <Badge color={color} variant="light">
      {label}
    </Badge>
  );
}

/** A started list: live progress, Cancel while it runs, the downloads, and every row with its job. */
export function ListRun({ list, progress, rows, queue }: { list: ListSummary; progress: ListProgress; rows: ListRowReply[]; queue: ListQueueWait | null }) {
  const [isCancelOpen, setCancelOpen] = useState(false);
  const percent = progressPercent(list.status, { toRun: progress.total, done: progress.done, failed: progress.failed, notCharged: progress.notCharged });
  const isRunning = isListRunning(list.status);
  // A queued list can be cancelled as a running one can: nothing of it has been charged.
  const isCancellable = isRunning || isListQueued(list.status);
  return (
    <Stack>
      <Card withBorder component="section" aria-labelledby="progress-heading">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h4" id="progress-heading">
            Progress
          </Title>
          <ListStatusBadge status={list.status} />
        </Group>
        <Progress
          value={percent}
          size="lg"
          aria-label={progressName('List progress', list.status)}
          color={isEndedEarly(list.status) ? LIST_STATUS_WORDS[list.status].color : undefined}
          animated={isRunning}
          mb="xs"
        />
        <Text role="status">
          {isEndedEarly(list.status) && `${ENDED_EARLY_WORDS[list.status]}: `}
          {formatCount(progress.done)} done, {formatCount(progress.failed)} failed, {formatCount(progress.remaining)} remaining
          {progress.notCharged > 0 && `, ${formatCount(progress.notCharged)} not run (not charged)`}
          {isRunning && ` · ${timeLeft(progress.etaSeconds)}`}
        </Text>
        {queue && <QueuedNotice queue={queue} />}
        <StopNotice list={list} progress={progress} />
        <Group mt="md">
          {isCancellable && (
            <Button color="red" variant="light" disabled={list.status === 'cancelling'} onClick={() => setCancelOpen(true)}>
              {list.status === 'cancelling' ? 'Cancelling…' : 'Cancel list'}
            </Button>
          )}
          <Button component="a" href={resultsUrl(list.id, 'csv')} download variant="default">
            Download CSV
          </Button>
          <Button component="a" href={resultsUrl(list.id, 'jsonl')} download variant="default">
            Download JSON Lines
          </Button>
        </Group>
        {isRunning && (
          <Text size="sm" c="dimmed" mt="xs">
            The downloads hold the rows finished so far; download again when the list ends.
          </Text>
        )}
      </Card>
      <RowsCard rows={rows} skipped={list.counts.total - list.counts.toRun} />
      <CancelListDialog list={list} opened={isCancelOpen} onClose={() => setCancelOpen(false)} />
    </Stack>
  );
}

/** A list waiting behind the account's own running lists: its place and an estimate from the account's recent jobs. */
function QueuedNotice({ queue }: { queue: ListQueueWait }) {
  return (
    <Alert color="grape" title={`Queued: ${ordinal(queue.place)} of your lists waiting`} mt="sm">
      {formatCount(queue.rowsAhead)} of your rows are ahead of it in your running and waiting lists; it starts by itself in {formatWait(queue.startsInSeconds)}, at the pace of your recent jobs. Your plan runs a set number of lists at once; no row is charged until it runs.
    </Alert>
  );
}

function StopNotice({ list, progress }: { list: ListSummary; progress: ListProgress }) {
  if (list.status === 'stopped_no_credits' || list.stoppedReason === 'credits_exhausted') {
    return (
      <Alert color="orange" title="The credits ran out" mt="sm">
        {formatCount(progress.notCharged)} {progress.notCharged === 1 ? 'row was' : 'rows were'} not started and not charged. Credits reset at the start of the next billing cycle, or{' '}
        <Anchor component={Link} to="/billing">
          change your plan on the Billing page
        </Anchor>
        .
      </Alert>
    );
  }
  if (list.status === 'cancelled' || list.status === 'cancelling') {
    return (
      <Alert color="gray" title={list.status === 'cancelling' ? 'Cancelling' : 'Cancelled'} mt="sm">
        Rows not yet started are not run and not charged; rows already being researched finish and are charged like any job.
        {list.finishedAt && ` Cancelled ${formatDateTime(list.finishedAt)}.`}
      </Alert>
    );
  }
  if (list.status === 'completed') {
    return (
      <Text size="sm" mt="xs">
        Finished {formatDateTime(list.finishedAt)}.
      </Text>
    );
  }
  return null;
}

function timeLeft(seconds: number | null): string {
  if (seconds === null) return 'estimating the time left';
  if (seconds < 60) return 'less than a minute left';
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `about ${minutes} ${minutes === 1 ? 'minute' : 'minutes'} left` : `about ${Math.round(minutes / 60)} hours left`;
}

function RowsCard({ rows, skipped }: { rows: ListRowReply[]; skipped: number }) {
  return (
    <Card withBorder component="section" aria-labelledby="rows-heading">
      <Title order={2} size="h4" id="rows-heading" mb="xs">
        Rows
      </Title>
      {skipped > 0 && (
        <Text size="sm" mb="xs">
          {skipped === 1
            ? 'The 1 row not researched (invalid, duplicate or skipped) is in the CSV download, with the reason.'
            : `The ${formatCount(skipped)} rows not researched (invalid, duplicate or skipped) are in the CSV download, each with the reason.`}
        </Text>
      )}
      <ScrollBox label="Rows (scrollable)" rowCount={rows.length} maxHeight={480}>
        <Table striped stickyHeader aria-label="Rows of the list">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Row</Table.Th>
              <Table.Th scope="col">E-mail</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Result</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.rowNumber}>
                <Table.Td>{row.rowNumber}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{row.shownEmail ?? '—'}</Table.Td>
                <Table.Td>{ROW_STATUS_WORDS[row.status]}</Table.Td>
                <Table.Td>
                  {row.researchId ? (
                    <Anchor component={Link} to={`/jobs/${row.researchId}`} aria-label={`View job for row ${row.rowNumber}${row.shownEmail ? ` (${row.shownEmail})` : ''}`}>
                      View job
                    </Anchor>
                  ) : (
                    row.error ?? ''
                  )}
                  {row.researchId && row.error && (
                    <Text size="sm" c="dimmed">
                      {row.error}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollBox>
    </Card>
  );
}

function CancelListDialog({ list, opened, onClose }: { list: ListSummary; opened: boolean; onClose(): void }) {
  const cancel = useCancelList(list.id);
  const close = () => {
    cancel.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Cancel this list?">
      <Stack>
        <Text>
          {list.status === 'queued'
            ? 'The list has not started: none of its rows is run or charged.'
            : 'Rows not yet started are not run and not charged. Rows already being researched finish and are charged like any job; their results stay in the downloads.'}
        </Text>
        <FormError error={cancel.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {list.status === 'queued' ? 'Keep it queued' : 'Keep running'}
          </Button>
          <Button color="red" loading={cancel.isPending} onClick={() => cancel.mutate(undefined, { onSuccess: close })}>
            Cancel list {list.name}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
