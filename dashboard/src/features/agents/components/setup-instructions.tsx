import { Box, Button, Card, Code, CopyButton, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { clientSetups, type SetupSnippet } from '../setup.ts';

const COPIED_SHOWN_MS = 2_000;

/** The server's URL and, per client, what to paste: a command or a configuration file. */
export function SetupInstructions({ mcpUrl }: { mcpUrl: string }) {
  const setups = clientSetups(mcpUrl);
  return (
    <Card withBorder component="section" aria-labelledby="agents-setup-heading">
      <Title order={2} size="h4" id="agents-setup-heading" mb="sm">
        Connect an agent
      </Title>
      <Stack gap="sm">
        <Text>
          The MCP server's URL is <Code>{mcpUrl}</Code>. An agent signs in either with an API key (from the API keys page; its product context is
          the agent's default product) or with your dashboard sign-in, where you see what it asks for and allow or deny it.
        </Text>
        <Tabs defaultValue={setups[0]!.id}>
          <Tabs.List aria-label="MCP clients">
            {setups.map((setup) => (
              <Tabs.Tab key={setup.id} value={setup.id}>
                {setup.client}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {setups.map((setup) => (
            <Tabs.Panel key={setup.id} value={setup.id} pt="md">
              <Stack gap="md">
                <Text size="sm">{setup.notes}</Text>
                {setup.snippets.map((snippet) => (
                  <Snippet key={snippet.label} snippet={snippet} />
                ))}
              </Stack>
            </Tabs.Panel>
          ))}
        </Tabs>
      </Stack>
    </Card>
  );
}

function Snippet({ snippet }: { snippet: SetupSnippet }) {
  return (
    <Box component="figure" m={0} aria-label={snippet.label}>
      <Group justify="space-between" wrap="nowrap" mb={4}>
        <Text size="sm" fw={600} component="figcaption">
          {snippet.where}
        </Text>
        <CopyButton value={snippet.code} timeout={COPIED_SHOWN_MS}>
          {({ copied, copy }) => (
            <Button size="xs" variant={copied ? 'filled' : 'default'} color={copied ? 'teal.9' : undefined} onClick={copy} aria-label={`Copy ${snippet.label}`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      {/* Wrapped, not scrolled: a long URL or key stays readable without a scrollable box. */}
      <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {snippet.code}
      </Code>
    </Box>
  );
}
