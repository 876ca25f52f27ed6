import { Badge } from '@mantine/core';
import type { ResearchJobStatus } from '../../../../../domain/research-job-status.ts';

const COLORS: Record<ResearchJobStatus, string> = { queued: 'gray', processing: 'blue', completed: 'teal', failed: 'red' };

export function StatusBadge({ status }: { status: ResearchJobStatus }) {
  return (
    <Badge color={COLORS[status]} variant="light">
      {status}
    </Badge>
  );
}
