import { Badge } from '@mantine/core';
import type { ResearchJobStatus } from '../../../../../domain/research/job-status.ts';

// Filled badges in the darkest shades: white text on them meets WCAG AA's 4.5:1.
const COLORS: Record<ResearchJobStatus, string> = { queued: 'gray.7', processing: 'blue.9', completed: 'teal.9', failed: 'red.9' };

export function StatusBadge({ status }: { status: ResearchJobStatus }) {
  return (
    <Badge color={COLORS[status]} variant="filled">
      {status}
    </Badge>
  );
}
