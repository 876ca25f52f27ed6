import { Alert, Button, Group, Loader } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';

/** Loading, failure with a retry, or the page itself: every page that reads data goes through this. */
export function QueryState<T>({ query, label, children }: { query: UseQueryResult<T>; label: string; children: (data: T) => ReactNode }) {
  // A status with a name: a bare Loader is a span, on which axe refuses an aria-label.
  if (query.isPending) return <Loader role="status" aria-label={`Loading ${label}`} />;
  if (query.isError) {
    return (
      <Alert color="red" title={`Could not load ${label}`} role="alert">
        <Group justify="space-between">
          <span>{query.error.message}</span>
          <Button variant="white" onClick={() => void query.refetch()}>
            Retry
          </Button>
        </Group>
      </Alert>
    );
  }
  return <>{children(query.data)}</>;
}
