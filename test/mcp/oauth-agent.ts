import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';

// An MCP agent that connects over OAuth with the official SDK's auth provider:
// it discovers the authorization server, registers (dynamically, or by its
// client ID metadata document), sends the owner to the authorization URL with
// PKCE, and exchanges the code for tokens bound to the server's /mcp.

type ClientInformation = Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
type Tokens = Awaited<ReturnType<OAuthClientProvider['tokens']>>;

export const REDIRECT_URL = 'http://127.0.0.1:33418/callback';

export class TestOAuthAgent implements OAuthClientProvider {
  clientInfo: ClientInformation;
  savedTokens: Tokens;
  verifier = '';
  authorizationUrl: URL | null = null;

  private readonly name: string;
  readonly clientMetadataUrl?: string;
  private readonly scope: string;

  constructor(name: string, clientMetadataUrl?: string, scope = 'research:read research:write') {
    this.name = name;
    this.clientMetadataUrl = clientMetadataUrl;
    this.scope = scope;
  }

  get redirectUrl() {
    return REDIRECT_URL;
  }

  get clientMetadata() {
    return { client_name: this.name, redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: this.scope };
  }

  clientInformation = () => this.clientInfo;
  saveClientInformation = (info: NonNullable<ClientInformation>) => void (this.clientInfo = info);
  tokens = () => this.savedTokens;
  saveTokens = (tokens: NonNullable<Tokens>) => void (this.savedTokens = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

export const mcpTransport = (apiUrl: string, provider: OAuthClientProvider) => new StreamableHTTPClientTransport(new URL('/mcp', apiUrl), { authProvider: provider });

/** Starts the flow: the first connection is refused (401), and the provider is sent to the authorization URL. */
export async function startAuthorization(apiUrl: string, agent: TestOAuthAgent): Promise<URL> {
  const client = new Client({ name: 'oauth-test-agent', version: '1.0.0' });
  const transport = mcpTransport(apiUrl, agent);
  await client.connect(transport).then(
    () => {
      throw new Error('connected without authorization');
    },
    (error: unknown) => {
      if (!(error instanceof UnauthorizedError)) throw error;
    },
  );
  if (!agent.authorizationUrl) throw new Error('the SDK did not ask for authorization');
  return agent.authorizationUrl;
}

/** Ends the flow with the code the owner's consent returned, then connects. */
export async function finishAndConnect(apiUrl: string, agent: TestOAuthAgent, callback: URL): Promise<Client> {
  const transport = mcpTransport(apiUrl, agent);
  await transport.finishAuth(callback.searchParams);
  const client = new Client({ name: 'oauth-test-agent', version: '1.0.0' });
  await client.connect(mcpTransport(apiUrl, agent));
  return client;
}
