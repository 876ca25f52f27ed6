import { Alert, Button, Card, SegmentedControl, Stack, Text, Textarea, Title } from '@mantine/core';
import { useId, useState, type DragEvent, type FormEvent } from 'react';
import { LIST_MAX_BYTES, LIST_MAX_ROWS, formatCount } from '../../../../../domain/lists/fields.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { usePasteList, useUploadList, type ListDraft } from '../api.ts';

/** Upload a CSV (drop it or choose it) or paste addresses; the server keeps it as a draft to map and check. Nothing is charged. */
export function NewListCard({ onCreated }: { onCreated(list: ListDraft): void }) {
  const [mode, setMode] = useState<'file' | 'paste'>('file');
  return (
    <Card withBorder component="section" aria-labelledby="new-list-heading">
      <Title order={2} size="h4" id="new-list-heading" mb="xs">
        New list
      </Title>
      <Text size="sm" mb="sm">
        A CSV in UTF-8 with a header row, comma- or semicolon-separated, up to {formatCount(LIST_MAX_ROWS)} rows and 2 MiB. You map its columns and
        see what it costs before anything runs.
      </Text>
      <SegmentedControl
        aria-label="How to add the list"
        mb="md"
        value={mode}
        onChange={(value) => setMode(value as 'file' | 'paste')}
        data={[
          { value: 'file', label: 'Upload a CSV' },
          { value: 'paste', label: 'Paste addresses' },
        ]}
      />
      {mode === 'file' ? <UploadForm onCreated={onCreated} /> : <PasteForm onCreated={onCreated} />}
    </Card>
  );
}

function UploadForm({ onCreated }: { onCreated(list: ListDraft): void }) {
  const upload = useUploadList();
  const inputId = useId();
  const [isOver, setIsOver] = useState(false);
  const [tooLarge, setTooLarge] = useState<string | null>(null);
  const send = (file: File | undefined) => {
    if (!file) return;
    upload.reset();
    // Checked here too so a large file is not sent at all; the server checks again.
    if (file.size > LIST_MAX_BYTES) {
      setTooLarge(`"${file.name}" is ${(file.size / 1024 / 1024).toFixed(1)} MiB; a list can be at most 2 MiB. Split it into smaller files.`);
      return;
    }
    setTooLarge(null);
    upload.mutate(file, { onSuccess: ({ list }) => onCreated(list) });
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setIsOver(false);
    send(event.dataTransfer.files[0]);
  };
  return (
    <Stack>
      <div
        onDragOver={(event) => {
          event.preventDefault();
          setIsOver(true);
        }}
        onDragLeave={() => setIsOver(false)}
        onDrop={drop}
        style={{
          border: `2px dashed ${isOver ? 'var(--mantine-color-blue-7)' : 'var(--mantine-color-gray-5)'}`,
          borderRadius: 8,
          padding: 'var(--mantine-spacing-lg)',
          background: isOver ? 'var(--mantine-color-blue-0)' : undefined,
        }}
      >
        <Stack gap="xs" align="flex-start">
          <Text fw={500}>Drop a CSV file here, or choose one.</Text>
          <label htmlFor={inputId}>
            <Text size="sm" component="span">
              CSV file
            </Text>
          </label>
          <input
            id={inputId}
            type="file"
            accept=".csv,.txt,text/csv,text/plain"
            disabled={upload.isPending}
            onChange={(event) => {
              send(event.currentTarget.files?.[0]);
              event.currentTarget.value = '';
            }}
          />
          {upload.isPending && <Text size="sm" role="status">Reading the file…</Text>}
        </Stack>
      </div>
      <UploadError message={tooLarge} error={upload.error} />
    </Stack>
  );
}

function PasteForm({ onCreated }: { onCreated(list: ListDraft): void }) {
  const paste = usePasteList();
  const [text, setText] = useState('');
  const [empty, setEmpty] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setEmpty(text.trim() === '');
    if (text.trim() === '') return;
    paste.mutate(text, { onSuccess: ({ list }) => onCreated(list) });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Textarea
          label="E-mail addresses, one per line"
          autosize
          minRows={5}
          maxRows={14}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          error={empty ? 'Paste at least one address.' : undefined}
          placeholder={'anna@acme.com\nkim@example.org'}
        />
        <UploadError message={null} error={paste.error} />
        <Button type="submit" loading={paste.isPending} w="fit-content">
          Check addresses
        </Button>
      </Stack>
    </form>
  );
}

/** A refused file is said where it was chosen, with the server's sentence (what is wrong and what to do). */
function UploadError({ message, error }: { message: string | null; error: Error | null }) {
  const text = message ?? error?.message;
  if (!text) return null;
  const isTooLarge = message !== null || (error instanceof ApiError && error.code === 'payload_too_large');
  return (
    <Alert color="red" role="alert" title={isTooLarge ? 'The file is too large' : 'This list cannot be used'}>
      {text}
    </Alert>
  );
}
