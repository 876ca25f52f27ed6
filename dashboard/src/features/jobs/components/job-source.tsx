import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { JobListItem } from '../../../../../domain/dashboard/replies.ts';

/** Where a job came from: the API, a list (linked to it) or a CRM sync. */
export function JobSource({ job }: { job: Pick<JobListItem, 'source' | 'listId' | 'listName'> }) {
  if (job.source === 'list' && job.listId) {
    return (
      <Anchor component={Link} to={`/lists/${job.listId}`} size="sm">
        List {job.listName ?? ''}
      </Anchor>
    );
  }
  return <Text size="sm">{job.source === 'crm' ? 'CRM sync' : 'API'}</Text>;
}
