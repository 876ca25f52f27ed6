import { Anchor, Button, Text } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { isDraft, useList } from '../../../features/lists/api.ts';
import { DraftList } from '../../../features/lists/components/draft-list.tsx';
import { ListRun } from '../../../features/lists/components/list-run.tsx';
import { ApiError } from '../../../lib/api-client.ts';

/** One list: a draft to map, check and start, or a started list's progress, rows and downloads. */
export default function ListPage() {
  const { listId = '' } = useParams();
  const detail = useList(listId);
  // Another account's list and an unknown id read the same: a dead end with a way back.
  if (detail.error instanceof ApiError && detail.error.status === 404) {
    return (
      <>
        <PageTitle>List not found</PageTitle>
        <Text mb="md">There is no list {listId} in this account. It may have been a draft that was deleted.</Text>
        <Button component={Link} to="/lists" variant="default">
          Back to lists
        </Button>
      </>
    );
  }
  return (
    <>
      <Anchor component={Link} to="/lists" size="sm">
        Back to lists
      </Anchor>
      <PageTitle>{detail.data ? `List ${detail.data.list.name}` : 'List'}</PageTitle>
      <QueryState query={detail} label="this list">
        {({ list, progress, rows, queue }) => (isDraft(list) ? <DraftList list={list} /> : <ListRun list={list} progress={progress} rows={rows} queue={queue} />)}
      </QueryState>
    </>
  );
}
