import { Badge, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { formatDateTime } from '../../../lib/format.ts';
import type { ConnectedAgent } from '../api.ts';
import { describeScope } from '../scopes.ts';

/** Where an agent says it lives, as a host name a person recognises. */
export const agentHost = (agent: ConnectedAgent) => {
  try {
    return agent.uri ? new URL(agent.uri).host : null;
  } catch {
    return null;
  }
};

/** The agents the owner allowed, each with what it may do and a way to end it. */
export function ConnectedAgents({ agents, onRevoke }: { agents: ConnectedAgent[]; onRevoke(agent: ConnectedAgent): void }) {
  return (
    <Card withBorder component="section" aria-labelledby="connected-agents-heading">
      <Title order={2} size="h4" id="connected-agents-heading" mb="sm">
        Connected agents
      </Title>
      {agents.length === 0 ? (
        <Text c="dimmed">No agent is connected with your sign-in. Agents that use an API key are listed under API keys instead.</Text>
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table aria-label="Connected agents" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Agent</Table.Th>
                <Table.Th scope="col">May</Table.Th>
                <Table.Th scope="col">Connected since</Table.Th>
                <Table.Th scope="col">Last connected</Table.Th>
                <Table.Th scope="col">Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {agents.map((agent) => (
                <Table.Tr key={agent.clientId}>
                  <Table.Th scope="row">
                    <Stack gap={0}>
                      <span>{agent.name}</span>
                      {agentHost(agent) && (
                        <Text size="xs" c="dimmed" component="span">
                          {agentHost(agent)}
                        </Text>
                      )}
                    </Stack>
                  </Table.Th>
                  <Table.Td>
                    <Group gap={4}>
                      {agent.scopes.map((scope) => (
                        <Badge key={scope} color={scope === 'research:write' ? 'grape.9' : 'blue.9'} variant="filled" tt="none" title={scope}>
                          {describeScope(scope)}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>{formatDateTime(agent.connectedAt)}</Table.Td>
                  <Table.Td>{formatDateTime(agent.lastTokenAt)}</Table.Td>
                  <Table.Td>
                    <Button size="xs" color="red" variant="light" onClick={() => onRevoke(agent)}>
                      Revoke {agent.name}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
