import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, linkIn } from '../../scripts/lib/dashboard-client.ts';
import { ensureDashboardBuilt, launchChromium, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { SAMPLE_PRODUCT, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { WEBHOOK_TEST_ENV } from '../helpers/webhook-delivery.ts';
import { finishAndConnect, REDIRECT_URL, startAuthorization, TestOAuthAgent } from './oauth-agent.ts';

// A person connects an AI agent in Chromium: the SDK client's OAuth provider
// starts the flow, the browser signs in (by password or by an e-mailed link),
// reads the consent page and allows or denies; the agent calls a tool; the AI
// agents page lists it and revokes it, and the agent's next call is 401. Found
// by role and label; every state is scanned with axe, and no page breaks the
// Content-Security-Policy.

const PASSWORD = 'correct horse battery';
const READ_WORDS = 'Read your research, lists, credits and products';
const WRITE_WORDS = 'Start research and lists, which spend your credits';

let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;
let documents: Server;
let documentsUrl: string;
let counter = 0;
const findings: Record<string, string[]> = {};
const cspViolations: string[] = [];

declare global {
  interface Window {
    cspViolations: string[];
  }
}

beforeAll(async () => {
  await ensureDashboardBuilt();
  // A client ID metadata document's server: https on 127.0.0.1 with a certificate this process (the API's) trusts.
  const dir = mkdtempSync(join(tmpdir(), 'cimd-browser-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert]);
  documents = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    const clientId = `${documentsUrl}${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ client_id: clientId, client_name: 'Claude Code', redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    );
  });
  documents.listen(0, '127.0.0.1');
  await once(documents, 'listening');
  documentsUrl = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;

  mail = await startTestMailSandbox();
  stack = await startTestStack({ apiEnv: { ...mail.env, ...WEBHOOK_TEST_ENV, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await mail?.close();
  documents?.close();
});

/** An owner who signed up in the dashboard, on Scale, with one product. */
async function newOwner(): Promise<{ email: string; dashboard: DashboardClient }> {
  const email = `agents-page-${Date.now()}-${counter++}@example.com`;
  const dashboard = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
  const { accountId } = (await dashboard.get('/app/api/me')).body as { accountId: number };
  await stack.orm.em.fork().getConnection().execute(`update account set plan = 'scale' where id = ?`, [accountId]);
  await stack.createKey(accountId, SAMPLE_PRODUCT);
  return { email, dashboard };
}

/**
 * A signed-out browser whose pages record every CSP violation, and in which the agent's redirect URI (a loopback
 * address nothing listens on, as a desktop agent's) answers with a small page, so the code can be read off the URL.
 */
async function newBrowser(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  await context.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => window.cspViolations.push(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'}`), true);
  });
  await context.route(`${REDIRECT_URL}**`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Agent</title><h1>Back at the agent</h1>' }));
  const page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
  });
  return { context, page };
}

async function recordViolations(page: Page): Promise<void> {
  if (page.url().startsWith(stack.apiUrl)) cspViolations.push(...(await page.evaluate(() => window.cspViolations ?? [])));
}

async function scan(page: Page, state: string): Promise<void> {
  await page.waitForTimeout(300);
  findings[state] = await seriousAccessibilityFindings(page);
  await recordViolations(page);
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Waits for the browser to be back at the agent's redirect URI and returns that address (code or error). */
async function backAtAgent(page: Page): Promise<URL> {
  await page.waitForURL((url) => url.href.startsWith(REDIRECT_URL));
  return new URL(page.url());
}

const consentHeading = (page: Page) => page.getByRole('heading', { name: 'Allow an AI agent?', level: 1 });

const postMcp = (accessToken: string) =>
  fetch(`${stack.apiUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

describe('connecting an AI agent in the browser', () => {
  it('signed out: sign-in, consent, Allow; the agent calls a tool; revoked on the AI agents page, its next call is 401', async () => {
    const { email } = await newOwner();
    const agent = new TestOAuthAgent('Claude');
    const authorizationUrl = await startAuthorization(stack.apiUrl, agent);
    const { context, page } = await newBrowser();

    // The authorization endpoint sends a signed-out browser to sign in, carrying the signed request.
    await page.goto(authorizationUrl.href);
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/sign-in');
    expect(new URL(page.url()).searchParams.get('sig')).toBeTruthy();
    await page.getByText('Sign in to connect an AI agent to your account').waitFor();
    await scan(page, 'sign-in with an agent request');

    // Signed in, the flow resumes at the consent page: the agent named, its scopes in plain words.
    await signIn(page, email);
    await consentHeading(page).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/agents/consent');
    await page.getByText(`Claude asks to use Prospect enrichment as ${email}.`).waitFor();
    const scopes = page.getByRole('list', { name: 'If you allow it, it may:' });
    await expect.poll(() => scopes.getByRole('listitem').allTextContents()).toEqual(expect.arrayContaining([READ_WORDS, WRITE_WORDS]));
    await page.getByText(`Your answer goes back to ${new URL(REDIRECT_URL).host}.`, { exact: false }).waitFor();
    await scan(page, 'consent');
    await screenshotForReadme(page, 'agent-consent');

    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const callback = await backAtAgent(page);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('error')).toBeNull();

    const client = await finishAndConnect(stack.apiUrl, agent, callback);
    const account = await client.callTool({ name: 'get_account', arguments: {} });
    expect(account.isError).toBeFalsy();
    const accessToken = agent.savedTokens!.access_token;
    expect((await postMcp(accessToken)).status).toBe(200);

    // The AI agents page: the server's URL, the setup per client, the agent with what it may do.
    await page.goto('/app/agents');
    await page.getByRole('heading', { name: 'AI agents', level: 1 }).waitFor();
    await expect.poll(() => page.title()).toBe('AI agents · Prospect enrichment');
    const mcpUrl = `${stack.apiUrl}/mcp`;
    await page.getByRole('figure', { name: 'Claude Code command (sign in with your browser)' }).getByText(`claude mcp add --transport http prospect-enrichment ${mcpUrl}`, { exact: true }).waitFor();
    await page.getByRole('figure', { name: 'Claude Code command with an API key' }).getByText(`claude mcp add --transport http prospect-enrichment ${mcpUrl} --header "Authorization: Bearer YOUR_API_KEY"`, { exact: true }).waitFor();
    const row = page.getByRole('table', { name: 'Connected agents' }).getByRole('row', { name: /Claude/ });
    await row.waitFor();
    await row.getByText(READ_WORDS).waitFor();
    await row.getByText(WRITE_WORDS).waitFor();
    await scan(page, 'agents page with an agent');
    await screenshotForReadme(page, 'agents');

    for (const [tab, label, text] of [
      ['Claude Desktop and claude.ai', 'connector URL', mcpUrl],
      ['Cursor', 'Cursor configuration', `"url": "${mcpUrl}"`],
      ['VS Code', 'VS Code configuration', '"type": "http"'],
      ['Other clients', 'generic JSON configuration', `"url": "${mcpUrl}"`],
    ] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await expect.poll(() => page.getByRole('figure', { name: label, exact: true }).textContent()).toContain(text);
    }
    await scan(page, 'agents page, another client tab');

    // Revoke, confirmed in a dialog that names the agent.
    await row.getByRole('button', { name: 'Revoke Claude' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke access for Claude' });
    await dialog.waitFor();
    await scan(page, 'revoke dialog');
    await dialog.getByRole('button', { name: 'Revoke access for Claude' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('No agent is connected with your sign-in.').waitFor();
    expect(await page.getByRole('table', { name: 'Connected agents' }).count()).toBe(0);
    await scan(page, 'agents page after revoke');

    // At once: the same access token is refused, and the SDK's client cannot refresh its way back in.
    const refused = await postMcp(accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(client.callTool({ name: 'get_account', arguments: {} })).rejects.toThrow();
    await context.close();
  }, 240_000);

  it('the page with no agent, and a denied consent that returns access_denied and connects nothing', async () => {
    const { email, dashboard } = await newOwner();
    const { context, page } = await newBrowser();
    await page.goto('/app/sign-in');
    await signIn(page, email);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'AI agents' }).click();
    await page.getByRole('heading', { name: 'AI agents', level: 1 }).waitFor();
    await page.getByText('No agent is connected with your sign-in.').waitFor();
    await scan(page, 'agents page empty');

    // Signed in already, the authorization request goes straight to the consent page.
    const agent = new TestOAuthAgent('Unwanted agent');
    await page.goto((await startAuthorization(stack.apiUrl, agent)).href);
    await consentHeading(page).waitFor();
    await page.getByText(`Unwanted agent asks to use Prospect enrichment as ${email}.`).waitFor();
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    const callback = await backAtAgent(page);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
    expect(((await dashboard.get('/app/api/agents')).body as { agents: unknown[] }).agents).toEqual([]);

    await page.goto('/app/agents');
    await page.getByText('No agent is connected with your sign-in.').waitFor();
    await recordViolations(page);
    await context.close();
  }, 180_000);

  it('the consent page opened signed out goes to sign-in and comes back to it; an agent known by its metadata document is named with its host', async () => {
    const { email, dashboard } = await newOwner();
    const clientId = `${documentsUrl}/oauth/claude-code-${counter++}.json`;
    const agent = new TestOAuthAgent('Claude Code', clientId);
    const authorizationUrl = await startAuthorization(stack.apiUrl, agent);
    // The owner's signed-in session (another browser) is sent to the consent page; its address is opened signed out.
    const reply = await dashboard.get(authorizationUrl.pathname + authorizationUrl.search);
    const consentUrl = reply.status === 302 ? reply.headers.get('location')! : (reply.body as { url: string }).url;
    expect(new URL(consentUrl, stack.apiUrl).pathname).toBe('/app/agents/consent');

    const { context, page } = await newBrowser();
    await page.goto(consentUrl);
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/sign-in');
    expect(new URL(page.url()).searchParams.get('client_id')).toBe(clientId);
    await signIn(page, email);
    await consentHeading(page).waitFor();
    await page.getByText(`Claude Code asks to use Prospect enrichment as ${email}.`).waitFor();
    await page.getByText(`It is identified by its metadata document at ${new URL(documentsUrl).host}`).waitFor();
    await page.getByText(clientId, { exact: true }).waitFor();
    await scan(page, 'consent, agent known by its metadata document');

    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const client = await finishAndConnect(stack.apiUrl, agent, await backAtAgent(page));
    expect((await client.callTool({ name: 'get_account', arguments: {} })).isError).toBeFalsy();
    await client.close();
    await context.close();
  }, 180_000);

  it('signing in by an e-mailed link resumes the agent\'s request', async () => {
    const { email } = await newOwner();
    const agent = new TestOAuthAgent('Linked agent');
    const { context, page } = await newBrowser();
    await page.goto((await startAuthorization(stack.apiUrl, agent)).href);
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'E-mail me a sign-in link instead' }).click();
    await page.getByText('a sign-in link is on its way').waitFor();

    const link = linkIn((await mail.waitForMessage(email, (message) => /sign-in link/i.test(message.subject))).text);
    await page.goto(link);
    await consentHeading(page).waitFor();
    await page.getByText(`Linked agent asks to use Prospect enrichment as ${email}.`).waitFor();
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const client = await finishAndConnect(stack.apiUrl, agent, await backAtAgent(page));
    expect((await client.callTool({ name: 'get_account', arguments: {} })).isError).toBeFalsy();
    await client.close();
    await context.close();
  }, 180_000);

  it('has no serious or critical accessibility findings in any state, and no page broke the Content-Security-Policy', () => {
    expect(Object.keys(findings).sort()).toEqual(
      [
        'agents page after revoke',
        'agents page empty',
        'agents page with an agent',
        'agents page, another client tab',
        'consent',
        'consent, agent known by its metadata document',
        'revoke dialog',
        'sign-in with an agent request',
      ].sort(),
    );
    expect(findings).toEqual(Object.fromEntries(Object.keys(findings).map((state) => [state, []])));
    expect(cspViolations).toEqual([]);
  });
});
