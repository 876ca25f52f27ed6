// Ready-to-paste setup for the MCP clients people use, from the server's URL.
// Each follows its client's documented form: Claude Code's `claude mcp add
// --transport http` (the header after the URL: --header takes several values),
// the `mcpServers` JSON with a remote `url` (Cursor and most clients), VS Code's
// `servers` with `"type": "http"`, and Claude's custom connectors by URL.

/** The name the server gets in each client's configuration. */
export const SERVER_NAME = 'prospect-enrichment';
/** Stands for the owner's API key: a key is shown once, when created, so the page never has it. */
export const KEY_PLACEHOLDER = 'YOUR_API_KEY';

export interface SetupSnippet {
  /** What the snippet is, in the copy button's name ("Copy the Claude Code command with a key"). */
  label: string;
  /** Where it goes: a terminal, or a file. */
  where: string;
  code: string;
}

export interface ClientSetup {
  id: string;
  client: string;
  /** How this client signs in: a key in a header, or OAuth through the consent page. */
  notes: string;
  snippets: SetupSnippet[];
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const bearer = `Bearer ${KEY_PLACEHOLDER}`;

export function clientSetups(mcpUrl: string): ClientSetup[] {
  return [
    {
      id: 'claude-code',
      client: 'Claude Code',
      notes: 'Without a key, run /mcp in Claude Code once: it opens the sign-in in your browser and asks you to allow it.',
      snippets: [
        { label: 'Claude Code command (sign in with your browser)', where: 'In a terminal, signing in with your browser', code: `claude mcp add --transport http ${SERVER_NAME} ${mcpUrl}` },
        { label: 'Claude Code command with an API key', where: 'In a terminal, with an API key', code: `claude mcp add --transport http ${SERVER_NAME} ${mcpUrl} --header "Authorization: ${bearer}"` },
      ],
    },
    {
      id: 'claude',
      client: 'Claude Desktop and claude.ai',
      notes:
        'In Claude (claude.ai or Claude Desktop), open Connectors and add a custom connector with this URL; you then sign in here and allow it. Claude connects from its own servers, so this address must be reachable from the internet.',
      snippets: [{ label: 'connector URL', where: 'Remote MCP server URL', code: mcpUrl }],
    },
    {
      id: 'cursor',
      client: 'Cursor',
      notes: 'Without the headers, Cursor signs in with your browser instead of a key.',
      snippets: [
        {
          label: 'Cursor configuration',
          where: '~/.cursor/mcp.json (every project) or .cursor/mcp.json (this project)',
          code: json({ mcpServers: { [SERVER_NAME]: { url: mcpUrl, headers: { Authorization: bearer } } } }),
        },
      ],
    },
    {
      id: 'vscode',
      client: 'VS Code',
      notes: 'VS Code asks for the key once and keeps it out of the file. Without the headers and inputs, it signs in with your browser instead.',
      snippets: [
        {
          label: 'VS Code configuration',
          where: '.vscode/mcp.json',
          code: json({
            inputs: [{ type: 'promptString', id: 'prospect-enrichment-key', description: 'Prospect enrichment API key', password: true }],
            servers: { [SERVER_NAME]: { type: 'http', url: mcpUrl, headers: { Authorization: 'Bearer ${input:prospect-enrichment-key}' } } },
          }),
        },
      ],
    },
    {
      id: 'other',
      client: 'Other clients',
      notes: 'Most clients that take an mcpServers file accept a remote server by url (Streamable HTTP). A client that only starts local servers can reach it through the mcp-remote bridge.',
      snippets: [
        { label: 'generic JSON configuration', where: 'The client’s MCP configuration', code: json({ mcpServers: { [SERVER_NAME]: { url: mcpUrl, headers: { Authorization: bearer } } } }) },
        {
          label: 'mcp-remote bridge configuration',
          where: 'For clients that only start local servers',
          code: json({ mcpServers: { [SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', mcpUrl, '--header', `Authorization: ${bearer}`] } } }),
        },
      ],
    },
  ];
}
