import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// The clients an agent uses, both SDK lines, connected to the real API's /mcp with an API key.

export type ClientLine = 'v2-auto' | 'v2-legacy' | 'v1';
export const CLIENT_LINES: ClientLine[] = ['v2-auto', 'v2-legacy', 'v1'];

export interface McpTestClient {
  line: ClientLine;
  listTools(): Promise<{ tools: Array<Record<string, any>> }>;
  callTool(name: string, args: Record<string, unknown>, options?: { onprogress?: (progress: { progress: number; message?: string }) => void }): Promise<Record<string, any>>;
  readResource(uri: string): Promise<{ contents: Array<Record<string, any>> }>;
  protocolVersion(): string | undefined;
  close(): Promise<void>;
}

export async function connectMcp(apiUrl: string, key: string, line: ClientLine): Promise<McpTestClient> {
  const url = new URL('/mcp', apiUrl);
  const requestInit = { headers: { authorization: `Bearer ${key}` } };
  if (line === 'v1') {
    const client = new ClientV1({ name: 'mcp-test-v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, { requestInit }));
    return {
      line,
      listTools: () => client.listTools() as never,
      callTool: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options?.onprogress ? { onprogress: options.onprogress } : undefined) as never,
      readResource: (uri) => client.readResource({ uri }) as never,
      protocolVersion: () => undefined,
      close: () => client.close(),
    };
  }
  const client = new ClientV2({ name: `mcp-test-${line}`, version: '1.0.0' }, { versionNegotiation: { mode: line === 'v2-auto' ? 'auto' : 'legacy' } });
  await client.connect(new TransportV2(url, { requestInit }));
  return {
    line,
    listTools: () => client.listTools() as never,
    callTool: (name, args, options) => client.callTool({ name, arguments: args }, options?.onprogress ? { onprogress: options.onprogress } : undefined) as never,
    readResource: (uri) => client.readResource({ uri }) as never,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    close: () => client.close(),
  };
}
