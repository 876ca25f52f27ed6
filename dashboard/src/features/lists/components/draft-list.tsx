import { Alert, Anchor, Button, Card, Group, NativeSelect, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatCount } from '../../../../../domain/lists/fields.ts';
import { FormError } from '../../../components/auth-layout.tsx';
import { useDeleteList, useListKeys, useLists, useStartList, useUpdateList, type ListDraft } from '../api.ts';
import { ColumnMappingCard } from './column-mapping.tsx';
import { LimitsNotice } from './limits-notice.tsx';
import { PreviewCard } from './preview-card.tsx';

/** A draft: choose the key, map the columns, check the preview, start. Nothing is charged before Start. */
export function DraftList({ list }: { list: ListDraft }) {
  // Controls stay enabled while a change is saved: disabling the focused one would drop keyboard focus.
  const update = useUpdateList(list.id);
  return (
    <Stack maw={1100}>
      <Text>Nothing is charged until you start the list. Each row is researched like an API request with the key you choose.</Text>
      <KeyCard list={list} onChange={(apiKeyId) => update.mutate({ apiKeyId })} />
      <ColumnMappingCard
        headers={list.headers}
        sampleRows={list.sampleRows}
        mapping={list.mapping}
        mappingError={list.mappingError}
        onChange={(mapping) => update.mutate({ mapping })}
      />
      <FormError error={update.error} />
      {list.preview && (
        <PreviewCard preview={list.preview} skipFlagged={list.skipFlagged} onSkipFlagged={(skipFlagged) => update.mutate({ skipFlagged })} />
      )}
      <StartCard list={list} isSaving={update.isPending} />
    </Stack>
  );
}

function KeyCard({ list, onChange }: { list: ListDraft; onChange(apiKeyId: number): void }) {
  const keys = useListKeys();
  const [chosen, setChosen] = useState(list.apiKeyId === null ? '' : String(list.apiKeyId));
  useEffect(() => setChosen(list.apiKeyId === null ? '' : String(list.apiKeyId)), [list.apiKeyId]);
  const usable = (keys.data?.keys ?? []).filter((key) => key.status === 'active' && key.product !== null);
  return (
    <Card withBorder component="section" aria-labelledby="key-heading">
      <Title order={2} size="h4" id="key-heading" mb="xs">
        Key
      </Title>
      {keys.isSuccess && usable.length === 0 ? (
        <Alert color="yellow" title="No key with a product yet">
          A list is researched for a product, like an API request.{' '}
          <Anchor component={Link} to="/keys">
            Create an API key with its product
          </Anchor>{' '}
          first.
        </Alert>
      ) : (
        <NativeSelect
          label="API key"
          description="Its product context (what you sell, to whom) shapes the opening talk and synergy points; your language preference applies to every row."
          value={chosen}
          disabled={!keys.isSuccess}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (!value) return;
            setChosen(value);
            onChange(Number(value));
          }}
          data={[
            ...(list.apiKeyId === null ? [{ value: '', label: 'Choose a key' }] : []),
            ...usable.map((key) => ({ value: String(key.id), label: `${key.product?.name ?? 'No product'} (${key.prefix}…)` })),
          ]}
          maw={480}
        />
      )}
    </Card>
  );
}

function StartCard({ list, isSaving }: { list: ListDraft; isSaving: boolean }) {
  const lists = useLists();
  const start = useStartList(list.id);
  const remove = useDeleteList(list.id);
  const navigate = useNavigate();
  const limits = lists.data?.limits;
  const willRun = list.preview?.willRun ?? 0;
  const blocker = list.mappingError
    ? 'Choose the e-mail column first.'
    : list.apiKeyId === null
      ? 'Choose a key first.'
      : willRun === 0
        ? 'No row can run: see the check above.'
        : null;
  return (
    <Card withBorder component="section" aria-labelledby="start-heading">
      <Title order={2} size="h4" id="start-heading" mb="xs">
        Start
      </Title>
      <Stack>
        {limits && <LimitsNotice limits={limits} />}
        <FormError error={start.error ?? remove.error} />
        <Group>
          <Button disabled={blocker !== null} loading={start.isPending || isSaving} onClick={() => start.mutate(willRun)} aria-describedby={blocker ? 'start-blocker' : undefined}>
            {list.preview ? `Start researching ${formatCount(willRun)} ${willRun === 1 ? 'row' : 'rows'}` : 'Start researching'}
            {limits && limits.running + limits.queued >= limits.maxRunning ? ' when a running list ends' : ''}
          </Button>
          <Button variant="default" color="red" loading={remove.isPending} onClick={() => remove.mutate(undefined, { onSuccess: () => void navigate('/lists') })}>
            Delete this draft
          </Button>
        </Group>
        {blocker && (
          <Text size="sm" id="start-blocker">
            {blocker}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
