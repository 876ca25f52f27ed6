import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { JobListItem } from '../../../../../domain/dashboard/replies.ts';
import type { ResearchSource } from '../../../../../domain/research/fanout.ts';

/** Who asked for a job, as the Jobs page and the ledger say it. */
export const SOURCE_LABELS: Record<ResearchSource, string> = { api: 'API', list: 'List', crm: 'CRM sync', mcp: 'AI agent (MCP)' };

/** Where a job came from: the API, a list (linked to it), a CRM sync or an AI agent over MCP. */
export function JobSource({ job }: { job: Pick<JobListItem, 'source' | 'listId' | 'listName'> }) {
  if (job.source === 'list' && job.listId) {
    return (
      <Anchor component={Link} to={`/lists/${job.listId}`} size="sm">
        List {job.listName ?? ''}
      </Anchor>
    );
  }
  return <Text size="sm">{SOURCE_LABELS[job.source]}</Text>;
}
