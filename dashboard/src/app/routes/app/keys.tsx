import { Alert, Badge, Button, Group, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import type { KeyListItem, KeyProduct } from '../../../../../domain/dashboard/replies.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { CreateKeyDialog } from '../../../features/keys/components/create-key-dialog.tsx';
import { EditProductDialog, RevokeKeyDialog } from '../../../features/keys/components/key-dialogs.tsx';
import { useKeys } from '../../../features/keys/api.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { planLabel } from '../../../../../domain/billing/plans.ts';

export default function KeysPage() {
  const keys = useKeys();
  const [isCreating, setIsCreating] = useState(false);
  const [revoking, setRevoking] = useState<KeyListItem | null>(null);
  const [editing, setEditing] = useState<KeyProduct | null>(null);

  return (
    <>
      <PageTitle>API keys</PageTitle>
      <QueryState query={keys} label="your keys">
        {({ keys: list, plan, activeKeyLimit }) => {
          const active = list.filter((key) => key.status === 'active').length;
          const isAtLimit = activeKeyLimit !== null && active >= activeKeyLimit;
          return (
            <>
              <Group justify="space-between" mb="md">
                <Text>
                  {active} active {active === 1 ? 'key' : 'keys'}
                  {activeKeyLimit === null ? ' (no limit on your plan)' : ` of ${activeKeyLimit} on the ${planLabel(plan)} plan`}.
                </Text>
                <Button onClick={() => setIsCreating(true)} disabled={isAtLimit}>
                  Create API key
                </Button>
              </Group>
              {isAtLimit && (
                <Alert color="blue" mb="md" title="Key limit reached">
                  The {planLabel(plan)} plan allows {activeKeyLimit} active {activeKeyLimit === 1 ? 'key' : 'keys'} (Free 1, Starter 3, Growth 10, Scale
                  unlimited). Revoke a key you no longer use, or upgrade your plan on the Billing page.
                </Alert>
              )}
              {list.length === 0 ? (
                <Text c="dimmed">No keys yet. Create one to call the API.</Text>
              ) : (
                <Table.ScrollContainer minWidth={800}>
                  <Table aria-label="API keys" striped>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th scope="col">Product</Table.Th>
                        <Table.Th scope="col">Key</Table.Th>
                        <Table.Th scope="col">Created</Table.Th>
                        <Table.Th scope="col">Last used</Table.Th>
                        <Table.Th scope="col">Credits this cycle</Table.Th>
                        <Table.Th scope="col">Status</Table.Th>
                        <Table.Th scope="col">Actions</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {list.map((key) => (
                        <Table.Tr key={key.id}>
                          <Table.Th scope="row">{key.product?.name ?? 'No product context'}</Table.Th>
                          <Table.Td>
                            <code>{key.prefix}…</code>
                          </Table.Td>
                          <Table.Td>{formatDateTime(key.createdAt)}</Table.Td>
                          <Table.Td>{formatDateTime(key.lastUsedAt)}</Table.Td>
                          <Table.Td>{key.creditsThisCycle}</Table.Td>
                          <Table.Td>
                            <Badge color={key.status === 'active' ? 'teal.9' : 'gray.7'} variant="filled">
                              {key.status}
                            </Badge>
                          </Table.Td>
                          <Table.Td>
                            <Group gap="xs" wrap="nowrap">
                              <Button size="xs" variant="default" component={Link} to={`/jobs?keyId=${key.id}`}>
                                Jobs of {key.product?.name ?? key.prefix}
                              </Button>
                              {key.product && key.status === 'active' && (
                                <Button size="xs" variant="default" onClick={() => setEditing(key.product)}>
                                  Edit {key.product.name}
                                </Button>
                              )}
                              {key.status === 'active' && (
                                <Button size="xs" color="red" variant="light" onClick={() => setRevoking(key)}>
                                  Revoke {key.product?.name ?? key.prefix}
                                </Button>
                              )}
                            </Group>
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
            </>
          );
        }}
      </QueryState>
      <CreateKeyDialog opened={isCreating} onClose={() => setIsCreating(false)} />
      <RevokeKeyDialog apiKey={revoking} onClose={() => setRevoking(null)} />
      <EditProductDialog product={editing} onClose={() => setEditing(null)} />
    </>
  );
}
