import { Alert, Badge, Card, Group, Switch, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { formatCount, type ListPreview, type ListPreviewRow } from '../../../../../domain/lists/fields.ts';
import { ScrollBox } from './scroll-box.tsx';

const SHOWN_ROWS = 100;

/** The check before a list starts: counts, the flagged switch, the rows that will not run and why, and the cost. */
export function PreviewCard({ preview, skipFlagged, onSkipFlagged }: { preview: ListPreview; skipFlagged: boolean; onSkipFlagged(skip: boolean): void }) {
  // The switch moves when clicked; the server's answer (the recomputed preview) then confirms it.
  const [isSkipping, setSkipping] = useState(skipFlagged);
  useEffect(() => setSkipping(skipFlagged), [skipFlagged]);
  const flagged = preview.freeMail + preview.roleBased;
  const toRun = preview.rows.filter((row) => row.willRun);
  const left = preview.rows.filter((row) => !row.willRun);
  return (
    <Card withBorder component="section" aria-labelledby="preview-heading">
      <Title order={2} size="h4" id="preview-heading" mb="sm">
        Check
      </Title>
      <Table withTableBorder aria-label="Rows by check" maw={520} mb="md">
        <Table.Tbody>
          <CountRow label="Rows in the list" count={preview.totalRows} />
          <CountRow label="Valid addresses" count={preview.valid} />
          <CountRow label="Invalid addresses" count={preview.invalid} />
          <CountRow label="Duplicates folded into their first row" count={preview.duplicates} />
          <CountRow label="Free-mail or disposable addresses" count={preview.freeMail} />
          <CountRow label="Role addresses (info@, sales@…)" count={preview.roleBased} />
          <CountRow label="Rows to research" count={preview.toResearch} />
        </Table.Tbody>
      </Table>
      <Switch
        label={`Skip free-mail and role addresses (${formatCount(flagged)})`}
        description="A free-mail address has no company behind it to research, and a role mailbox has no person; either often finds little."
        checked={isSkipping}
        onChange={(event) => {
          setSkipping(event.currentTarget.checked);
          onSkipFlagged(event.currentTarget.checked);
        }}
        mb="md"
      />
      <Alert color={preview.isCutByCredits ? 'yellow' : 'blue'} role="status" title="Cost" mb="md">
        {preview.costMessage} Each row is one credit; a research job that fails is refunded, as on the API.
      </Alert>
      <RowsTable caption="Rows to research" rows={toRun} describe={(row) => (row.verdict === 'valid' ? '' : VERDICT_WORDS[row.verdict])} />
      {left.length > 0 && <RowsTable caption="Rows that will not be researched" rows={left} describe={(row) => whyNot(row, skipFlagged)} />}
    </Card>
  );
}

const VERDICT_WORDS: Record<ListPreviewRow['verdict'], string> = {
  valid: 'Valid',
  invalid: 'Invalid address',
  duplicate: 'Duplicate',
  free_mail: 'Free-mail address',
  role_based: 'Role address',
};

function whyNot(row: ListPreviewRow, skipFlagged: boolean): string {
  if (row.verdict === 'invalid') return `Invalid: ${row.reason ?? 'not an e-mail address'}`;
  if (row.verdict === 'duplicate') return `Duplicate: ${row.reason ?? 'same address as an earlier row'}`;
  if (row.verdict !== 'valid' && skipFlagged) return `${VERDICT_WORDS[row.verdict]}, skipped`;
  return 'Beyond the credits left: not started, not charged';
}

function CountRow({ label, count }: { label: string; count: number }) {
  return (
    <Table.Tr>
      <Table.Th scope="row" fw={400}>
        {label}
      </Table.Th>
      <Table.Td ta="right">{formatCount(count)}</Table.Td>
    </Table.Tr>
  );
}

function RowsTable({ caption, rows, describe }: { caption: string; rows: ListPreviewRow[]; describe(row: ListPreviewRow): string }) {
  const shown = rows.slice(0, SHOWN_ROWS);
  return (
    <>
      <Group gap="xs" mt="sm" mb={4}>
        <Title order={3} size="h5">
          {caption}
        </Title>
        <Badge variant="light" color="gray">
          {formatCount(rows.length)}
        </Badge>
      </Group>
      <ScrollBox label={`${caption} (scrollable)`} rowCount={shown.length} maxHeight={320}>
        <Table striped stickyHeader aria-label={caption}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Row</Table.Th>
              <Table.Th scope="col">E-mail</Table.Th>
              <Table.Th scope="col">Note</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((row) => (
              <Table.Tr key={row.rowNumber}>
                <Table.Td>{row.rowNumber}</Table.Td>
                {/* What the cell held, cut by the server; a valid address with its domain in its own letters. */}
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{row.shownEmail || '(empty)'}</Table.Td>
                <Table.Td>{describe(row)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollBox>
      {rows.length > shown.length && (
        <Text size="sm" c="dimmed">
          The first {formatCount(SHOWN_ROWS)} of {formatCount(rows.length)} rows are shown.
        </Text>
      )}
    </>
  );
}
