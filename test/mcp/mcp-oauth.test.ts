import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { SAMPLE_PRODUCT, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { WEBHOOK_TEST_ENV } from '../helpers/webhook-delivery.ts';
import { finishAndConnect, REDIRECT_URL, startAuthorization, TestOAuthAgent } from './oauth-agent.ts';

// Hosted agents' OAuth (docs/mcp.md#hosted-agents-oauth) against the real API:
// discovery, registration (dynamic and by client ID metadata document, served
// here over https), PKCE, the owner's consent, a tool call, revocation, and the
// refusals: no token, a token for another resource, a missing scope, another
// account's research.

let stack: TestStack;
let mail: TestMailSandbox;
let documents: Server;
let documentsUrl: string;
const served = new Map<string, unknown>();
let counter = 0;
/**
 * Where the authorization endpoint sends the owner: a browser's navigation gets a 302; a fetch (Node's sends
 * Sec-Fetch-Mode: cors, which no caller can change) gets the same address as `{redirect: true, url}`.
 */
async function redirectOf(owner: DashboardClient, path: string): Promise<string> {
  const reply = await owner.get(path);
  if (reply.status === 302) return reply.headers.get('location')!;
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toMatchObject({ redirect: true });
  return (reply.body as { url: string }).url;
}

/** An owner who signed up in the dashboard, on Scale, with one product (a key that carries it). */
async function newOwner(): Promise<{ dashboard: DashboardClient; accountId: number }> {
  const dashboard = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, `agent-owner-${Date.now()}-${counter++}@example.com`);
  const { accountId } = (await dashboard.get('/app/api/me')).body as { accountId: number };
  await stack.orm.em.fork().getConnection().execute(`update account set plan = 'scale' where id = ?`, [accountId]);
  await stack.createKey(accountId, SAMPLE_PRODUCT);
  return { dashboard, accountId };
}

/** The owner's browser at the authorization URL: signed in, it lands on the consent page with a signed query. */
async function consentPageUrl(owner: DashboardClient, authorizationUrl: URL): Promise<URL> {
  const location = new URL(await redirectOf(owner, authorizationUrl.pathname + authorizationUrl.search), stack.apiUrl);
  expect(location.pathname).toBe('/app/agents/consent');
  return location;
}

async function answerConsent(owner: DashboardClient, consentPage: URL, accept: boolean, scope?: string): Promise<URL> {
  const reply = await owner.post('/app/api/auth/oauth2/consent', { accept, oauth_query: consentPage.search.slice(1), ...(scope ? { scope } : {}) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return new URL((reply.body as { redirect_uri?: string; url?: string }).redirect_uri ?? (reply.body as { url: string }).url);
}

/** The whole flow for one agent and owner; returns the connected client. `scope`: what the owner allows, if less than asked. */
async function connectAgent(agent: TestOAuthAgent, owner: DashboardClient, scope?: string) {
  const authorizationUrl = await startAuthorization(stack.apiUrl, agent);
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(`${stack.apiUrl}/mcp`);
  const callback = await answerConsent(owner, await consentPageUrl(owner, authorizationUrl), true, scope);
  expect(callback.origin + callback.pathname).toBe(REDIRECT_URL);
  return finishAndConnect(stack.apiUrl, agent, callback);
}

const postMcp = (headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) =>
  fetch(`${stack.apiUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  // The metadata documents' server: https on 127.0.0.1 with a certificate this process trusts.
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert]);
  documents = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    const document = served.get(req.url ?? '');
    if (!document) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  documents.listen(0, '127.0.0.1');
  await once(documents, 'listening');
  documentsUrl = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;

  mail = await startTestMailSandbox();
  stack = await startTestStack({ apiEnv: { ...mail.env, ...WEBHOOK_TEST_ENV, DASHBOARD_MODE: 'off', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await mail?.close();
  documents?.close();
});

describe('discovery', () => {
  it('401 without a token points to the protected resource metadata, which names the sign-in as authorization server', async () => {
    const refused = await postMcp({});
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate')!;
    const metadataUrl = `${stack.apiUrl}/.well-known/oauth-protected-resource/mcp`;
    expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
    expect(challenge).toContain('scope="research:read research:write"');

    const resource = await (await fetch(metadataUrl)).json();
    expect(resource).toMatchObject({ resource: `${stack.apiUrl}/mcp`, authorization_servers: [`${stack.apiUrl}/app/api/auth`], scopes_supported: ['research:read', 'research:write'] });
    const server = await (await fetch(`${stack.apiUrl}/.well-known/oauth-authorization-server/app/api/auth`)).json();
    expect(server).toMatchObject({
      issuer: `${stack.apiUrl}/app/api/auth`,
      authorization_endpoint: `${stack.apiUrl}/app/api/auth/oauth2/authorize`,
      token_endpoint: `${stack.apiUrl}/app/api/auth/oauth2/token`,
      registration_endpoint: `${stack.apiUrl}/app/api/auth/oauth2/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });
});

describe('an agent connects over OAuth', () => {
  it('dynamic registration, PKCE, consent, a call; revoked from the dashboard, its next call is 401', async () => {
    const { dashboard, accountId } = await newOwner();
    const agent = new TestOAuthAgent('Test agent (DCR)');
    const client = await connectAgent(agent, dashboard);
    expect(agent.clientInfo?.client_id).toMatch(/^[A-Za-z]{20,}$/);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('research_prospect');
    const account = await client.callTool({ name: 'get_account', arguments: {} });
    expect(account.isError).toBeFalsy();
    expect((account.structuredContent as { products: Array<{ name: string; is_default: boolean }> }).products).toEqual([expect.objectContaining({ name: SAMPLE_PRODUCT.name, is_default: true })]);

    const listed = (await dashboard.get('/app/api/agents')).body as { mcpUrl: string; agents: Array<{ clientId: string; name: string; scopes: string[] }> };
    expect(listed.mcpUrl).toBe(`${stack.apiUrl}/mcp`);
    expect(listed.agents).toEqual([expect.objectContaining({ clientId: agent.clientInfo!.client_id, name: 'Test agent (DCR)', scopes: expect.arrayContaining(['research:read', 'research:write']) })]);

    expect((await dashboard.call('DELETE', `/app/api/agents/${encodeURIComponent(agent.clientInfo!.client_id)}`)).status).toBe(204);
    const afterRevoke = await postMcp({ authorization: `Bearer ${agent.savedTokens!.access_token}` });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(((await dashboard.get('/app/api/agents')).body as { agents: unknown[] }).agents).toEqual([]);
    expect(accountId).toBeGreaterThan(0);
    await client.close();
  });

  it('by client ID metadata document: the https client_id is fetched and the client named by it', async () => {
    const { dashboard } = await newOwner();
    const clientId = `${documentsUrl}/agents/metadata-${counter++}.json`;
    const agent = new TestOAuthAgent('Test agent (CIMD)', clientId);
    served.set(new URL(clientId).pathname, { client_id: clientId, client_name: 'Metadata Document Agent', redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });
    const client = await connectAgent(agent, dashboard);
    expect(agent.clientInfo?.client_id).toBe(clientId);
    expect((await client.callTool({ name: 'get_account', arguments: {} })).isError).toBeFalsy();
    const listed = (await dashboard.get('/app/api/agents')).body as { agents: Array<{ clientId: string; name: string }> };
    expect(listed.agents).toEqual([expect.objectContaining({ clientId, name: 'Metadata Document Agent' })]);
    await client.close();
  });

  it('a metadata document that does not name itself is refused', async () => {
    const clientId = `${documentsUrl}/agents/impostor-${counter++}.json`;
    served.set(new URL(clientId).pathname, { client_id: 'https://claude.ai/oauth/client.json', client_name: 'Impostor', redirect_uris: [REDIRECT_URL] });
    const { dashboard } = await newOwner();
    const url = new URL(`${stack.apiUrl}/app/api/auth/oauth2/authorize`);
    for (const [name, value] of Object.entries({ client_id: clientId, redirect_uri: REDIRECT_URL, response_type: 'code', scope: 'research:read', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: `${stack.apiUrl}/mcp`, state: 's' })) url.searchParams.set(name, value);
    const reply = await dashboard.get(url.pathname + url.search);
    const answer = JSON.stringify(reply.body) + (reply.headers.get('location') ?? '');
    expect(answer).not.toContain('/app/agents/consent');
    expect(answer).toContain('invalid_client');
  });

  it('denied consent returns access_denied to the agent and grants nothing', async () => {
    const { dashboard } = await newOwner();
    const agent = new TestOAuthAgent('Denied agent');
    const authorizationUrl = await startAuthorization(stack.apiUrl, agent);
    const callback = await answerConsent(dashboard, await consentPageUrl(dashboard, authorizationUrl), false);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(((await dashboard.get('/app/api/agents')).body as { agents: unknown[] }).agents).toEqual([]);
  });
});

describe('refusals', () => {
  it('a token missing a tool\'s scope gets 403 insufficient_scope; reading still works', async () => {
    const { dashboard } = await newOwner();
    const agent = new TestOAuthAgent('Read-only agent', undefined, 'research:read');
    // The owner allows reading only.
    const client = await connectAgent(agent, dashboard, 'research:read');
    expect(agent.savedTokens!.scope).toBe('research:read');
    expect((await client.callTool({ name: 'get_account', arguments: {} })).isError).toBeFalsy();
    const refused = await postMcp(
      { authorization: `Bearer ${agent.savedTokens!.access_token}` },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'research_prospect', arguments: { email: 'someone@example.com' } } },
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(refused.headers.get('www-authenticate')).toContain('scope="research:write"');
    await client.close();
  });

  it('a token for another resource (audience) is 401; the same token for /mcp passes; one signed by an unknown key is 401', async () => {
    const { dashboard } = await newOwner();
    const agent = new TestOAuthAgent('Audience agent');
    await (await connectAgent(agent, dashboard)).close();
    const payload = JSON.parse(Buffer.from(agent.savedTokens!.access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload.aud).toBe(`${stack.apiUrl}/mcp`);
    // The authorization server refuses to mint for a resource it does not serve.
    const elsewhere = await fetch(`${stack.apiUrl}/app/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: agent.savedTokens!.refresh_token!, client_id: agent.clientInfo!.client_id, resource: 'https://other.example/mcp' }),
    });
    expect(elsewhere.status).toBeGreaterThanOrEqual(400);
    // A key the authorization server publishes (added to its key set here) signs the same live grant's claims for two audiences.
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const kid = `test-key-${counter++}`;
    const connection = stack.orm.em.fork().getConnection();
    await connection.execute(`insert into auth_jwks (id, "publicKey", "privateKey", "createdAt", alg, crv) values (?, ?, 'unused', '2000-01-01', 'EdDSA', 'Ed25519')`, [kid, JSON.stringify(await exportJWK(publicKey))]);
    try {
      const sign = (aud: string) => new SignJWT({ ...payload, aud }).setProtectedHeader({ alg: 'EdDSA', kid }).sign(privateKey);
      expect((await postMcp({ authorization: `Bearer ${await sign(`${stack.apiUrl}/mcp`)}` })).status).toBe(200);
      const otherAudience = await postMcp({ authorization: `Bearer ${await sign('https://other.example/mcp')}` });
      expect(otherAudience.status).toBe(401);
      expect(otherAudience.headers.get('www-authenticate')).toContain('error="invalid_token"');
    } finally {
      await connection.execute('delete from auth_jwks where id = ?', [kid]);
    }
    const stranger = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const unknownKey = await new SignJWT({ ...payload }).setProtectedHeader({ alg: 'EdDSA', kid: 'unknown' }).sign(stranger.privateKey);
    expect((await postMcp({ authorization: `Bearer ${unknownKey}` })).status).toBe(401);
  });

  it('another account\'s research is not found through OAuth either', async () => {
    const other = await stack.createCustomer('scale');
    const started = await stack.api.post('/research', { email: 'tobias.fischer@zenithmedical.de' }, { key: other.key });
    const researchId = (started.body as { research_id: string }).research_id;
    expect(researchId).toBeTruthy();
    const { dashboard } = await newOwner();
    const client = await connectAgent(new TestOAuthAgent('Nosy agent'), dashboard);
    const result = await client.callTool({ name: 'get_research', arguments: { research_id: researchId, max_wait_seconds: 0 } });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: 'not_found' });
    await client.close();
  });

  it('API keys keep working', async () => {
    const customer = await stack.createCustomer('scale');
    expect((await postMcp({ authorization: `Bearer ${customer.key}` })).status).toBe(200);
  });
});
