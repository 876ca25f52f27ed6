import { Alert, Card, NativeSelect, SimpleGrid, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { LIST_FIELD_LABELS, LIST_FIELDS, type ColumnMapping, type ListField } from '../../../../../domain/lists/fields.ts';
import { shortText } from '../../../../../domain/shown-text.ts';

const NOT_USED = '';

/**
 * One select per column of the file: which field it fills. A field sits on one
 * column at most, so choosing it for a column takes it off the one it was on.
 */
export function ColumnMappingCard(props: {
  headers: string[];
  sampleRows?: string[][];
  mapping: ColumnMapping;
  mappingError: string | null;
  onChange(mapping: ColumnMapping): void;
}) {
  const { headers, sampleRows = [], mappingError } = props;
  // A choice shows at once; the server's answer (the recomputed preview) then confirms it.
  const [mapping, setMapping] = useState(props.mapping);
  useEffect(() => setMapping(props.mapping), [props.mapping]);
  const fieldOf = (column: number) => LIST_FIELDS.find((field) => mapping[field] === column) ?? NOT_USED;
  const choose = (column: number, value: string) => {
    const next: ColumnMapping = Object.fromEntries(Object.entries(mapping).filter(([, index]) => index !== column));
    if (value !== NOT_USED) next[value as ListField] = column;
    setMapping(next);
    props.onChange(next);
  };
  return (
    <Card withBorder component="section" aria-labelledby="mapping-heading">
      <Title order={2} size="h4" id="mapping-heading" mb="xs">
        Columns
      </Title>
      <Text size="sm" mb="sm">
        Guessed from the headers; change any of them. Only the e-mail column is required; names, companies and profile links help the research find
        the right person.
      </Text>
      {mappingError && (
        <Alert color="red" role="alert" title="Choose the e-mail column" mb="sm">
          {mappingError}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {headers.map((header, column) => {
          // The server sends the samples cut to a readable length; a header may be as long as any cell.
          const samples = sampleRows.map((row) => row[column]).filter(Boolean).slice(0, 3);
          return (
            <NativeSelect
              key={column}
              label={`Column ${column + 1}: ${shortText(header)}`}
              description={samples.length > 0 ? `e.g. ${samples.join(', ')}` : undefined}
              styles={{ label: { overflowWrap: 'anywhere' }, description: { overflowWrap: 'anywhere' } }}
              value={fieldOf(column)}
              onChange={(event) => choose(column, event.currentTarget.value)}
              data={[{ value: NOT_USED, label: 'Not used' }, ...LIST_FIELDS.map((field) => ({ value: field, label: LIST_FIELD_LABELS[field] }))]}
            />
          );
        })}
      </SimpleGrid>
    </Card>
  );
}
