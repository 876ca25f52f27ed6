import { Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useAgents, type ConnectedAgent } from '../../../features/agents/api.ts';
import { ConnectedAgents } from '../../../features/agents/components/connected-agents.tsx';
import { RevokeAgentDialog } from '../../../features/agents/components/revoke-agent-dialog.tsx';
import { SetupInstructions } from '../../../features/agents/components/setup-instructions.tsx';

/** The AI agents page: how to connect an MCP client (docs/mcp.md), and the agents allowed with your sign-in. */
export default function AgentsPage() {
  const agents = useAgents();
  const [revoking, setRevoking] = useState<ConnectedAgent | null>(null);
  return (
    <>
      <PageTitle>AI agents</PageTitle>
      <QueryState query={agents} label="your AI agents">
        {({ mcpUrl, agents: list }) => (
          <Stack maw={960}>
            <Text>
              Claude, ChatGPT, Cursor, VS Code and other agents that speak the Model Context Protocol can research prospects for you with the same
              credits as the API. Research they start shows as "AI agent (MCP)" on the Jobs and Usage pages.
            </Text>
            <SetupInstructions mcpUrl={mcpUrl} />
            <ConnectedAgents agents={list} onRevoke={setRevoking} />
          </Stack>
        )}
      </QueryState>
      <RevokeAgentDialog agent={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}
