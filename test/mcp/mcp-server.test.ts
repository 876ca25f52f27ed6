import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { DEFAULT_MODEL_LATENCY_MS, DEFAULT_PROVIDER_LATENCIES_MS, asLatencyMap } from '../../scripts/lib/bench/critical-path.ts';
import { Account } from '../../db/entities/index.ts';
import { usageOfCycle } from '../../services/billing/usage.ts';
import { PROMPT_INJECTIONS } from '../../sandbox/provider-world/posts-and-news.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { pickPeople } from '../insights/insight-helpers.ts';
import { CLIENT_LINES, connectMcp, type ClientLine, type McpTestClient } from './mcp-clients.ts';

// docs/mcp.md against the real API, Temporal and PostgreSQL, with the stand-ins'
// realistic latencies (the bench's: 300–800 ms per provider call, 1.5 s per model call).

const TOOLS = ['research_prospect', 'get_research', 'list_research', 'get_account', 'research_list', 'get_list'];
const SUMMARY_MAX_CHARS = 2_000 * 4;
const RESULT_MAX_CHARS = 20_000 * 4;

let stack: TestStack;
let customer: { accountId: number; key: string };
let other: { accountId: number; key: string };
let people: string[];
const clients = new Map<ClientLine, McpTestClient>();
const outputSchemas = new Map<string, object>();
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

/** A tool call whose result is checked as every result must be: size, and structuredContent against the tool's outputSchema. */
async function call(client: McpTestClient, tool: string, args: Record<string, unknown>, options?: Parameters<McpTestClient['callTool']>[2]) {
  const result = await client.callTool(tool, args, options);
  expect(JSON.stringify(result).length, `${tool} result size`).toBeLessThanOrEqual(RESULT_MAX_CHARS);
  if (!result.isError) {
    const validate = ajv.compile(outputSchemas.get(tool)!);
    expect(validate(result.structuredContent), `${tool}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  }
  return result;
}

const errorOf = (result: Record<string, any>) => {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  return JSON.parse(result.content[0].text) as { error: string; message: string; field?: string };
};

async function creditsUsed(accountId: number): Promise<number> {
  const [row] = await stack.orm.em.fork().getConnection().execute('select credits_used from account where id = ?', [accountId]);
  return Number(row.credits_used);
}

beforeAll(async () => {
  stack = await startTestStack();
  stack.providerWorld.setLatency(asLatencyMap(DEFAULT_PROVIDER_LATENCIES_MS));
  stack.model.setLatency(DEFAULT_MODEL_LATENCY_MS);
  customer = await stack.createCustomer('scale');
  other = await stack.createCustomer('scale');
  people = pickPeople(stack, 4, { knownTo: 'both', companyKnownTo: 'both' }).map(({ person }) => person.email);
  for (const line of CLIENT_LINES) clients.set(line, await connectMcp(stack.apiUrl, customer.key, line));
  const { tools } = await clients.get('v2-auto')!.listTools();
  for (const tool of tools) outputSchemas.set(tool.name, tool.outputSchema);
}, 120_000);
afterAll(async () => {
  for (const client of clients.values()) await client.close();
  await stack?.stop();
});

describe('tools/list', () => {
  it.each(CLIENT_LINES)('%s: the six tools in a fixed order, each described for an agent with schemas and honest annotations', async (line) => {
    const { tools } = await clients.get(line)!.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description.split(/\s+/).length, tool.name).toBeLessThanOrEqual(80);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema.type, tool.name).toBe('object');
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) expect(typeof tool.annotations[hint], `${tool.name} ${hint}`).toBe('boolean');
      expect(tool.annotations.destructiveHint, tool.name).toBe(false);
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    for (const name of ['get_research', 'list_research', 'get_account', 'get_list']) expect(byName[name].annotations.readOnlyHint, name).toBe(true);
    for (const name of ['research_prospect', 'research_list']) expect(byName[name].annotations.readOnlyHint, name).toBe(false);
  });

  it('answers 2026-07-28 clients in the modern era and 2025 clients in the legacy one', () => {
    expect(clients.get('v2-auto')!.protocolVersion()).toBe('2026-07-28');
    expect(clients.get('v2-legacy')!.protocolVersion()).toBe('2025-11-25');
  });
});

describe('research_prospect', () => {
  let researchId: string;

  it('a fresh research through a client with the default 60 s timeout: finished in one call, progress at most 5 s apart', async () => {
    const client = clients.get('v2-auto')!;
    const before = await creditsUsed(customer.accountId);
    const started = Date.now();
    const marks: Array<{ at: number; message?: string }> = [];
    const result = await call(client, 'research_prospect', { email: people[0] }, { onprogress: (progress) => marks.push({ at: Date.now(), message: progress.message }) });
    const ended = Date.now();
    const structured = result.structuredContent;
    expect(structured.status, JSON.stringify(structured)).toBe('completed');
    expect(structured.cost).toEqual({ credits_charged: 1, credits_left: 600 - before - 1 });
    expect(JSON.stringify(structured.summary).length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(structured.resource_uri).toBe(`research://${structured.research_id}`);
    expect(result.content.some((block: { type: string; uri?: string }) => block.type === 'resource_link' && block.uri === structured.resource_uri)).toBe(true);
    const times = [started, ...marks.map((mark) => mark.at), ended];
    const gaps = times.slice(1).map((at, index) => at - times[index]!);
    expect(Math.max(...gaps), JSON.stringify(marks)).toBeLessThanOrEqual(5_000);
    expect(marks.length).toBeGreaterThan(0);
    for (const mark of marks) expect(mark.message).toMatch(/Queued|Reading the cache|Looking up|Writing insights|Storing/);
    researchId = structured.research_id;
    const [row] = await stack.orm.em.fork().getConnection().execute('select source from research_job where id = ?', [researchId]);
    expect(row.source).toBe('mcp');
  });

  it('a repeat for the same e-mail and product is the same research, charged once', async () => {
    const before = await creditsUsed(customer.accountId);
    for (const line of ['v1', 'v2-legacy'] as const) {
      const result = await call(clients.get(line)!, 'research_prospect', { email: people[0]!.toUpperCase(), max_wait_seconds: 0 });
      expect(result.structuredContent.research_id, line).toBe(researchId);
      expect(result.structuredContent.cost.credits_charged, line).toBe(0);
    }
    expect(await creditsUsed(customer.accountId)).toBe(before);
  });

  it('a job still running comes back as a handle that tells the agent to call get_research, which waits for its end', async () => {
    const client = clients.get('v1')!;
    const started = await call(client, 'research_prospect', { email: people[1], max_wait_seconds: 0 });
    expect(['queued', 'processing']).toContain(started.structuredContent.status);
    expect(started.structuredContent.estimated_seconds).toBeGreaterThan(0);
    expect(started.structuredContent.cost.credits_charged).toBe(1);
    expect(started.content.map((block: { text?: string }) => block.text).join(' ')).toContain('get_research');
    const done = await call(client, 'get_research', { research_id: started.structuredContent.research_id, max_wait_seconds: 25 });
    expect(done.structuredContent.status).toBe('completed');
    expect(JSON.stringify(done.structuredContent.summary).length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
  });

  it('bad input is a tool error naming the field, never a protocol error', async () => {
    const client = clients.get('v2-legacy')!;
    expect(errorOf(await client.callTool('research_prospect', { email: 'not-an-address' }))).toMatchObject({ error: 'invalid_email_format', field: 'email' });
    expect(errorOf(await client.callTool('research_prospect', { email: people[2], product: 'No Such Product' }))).toMatchObject({ error: 'invalid_request', field: 'product' });
    const tooLong = await client.callTool('research_prospect', { email: people[2], max_wait_seconds: 99 });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.content[0].text).toContain('max_wait_seconds');
    const badView = await client.callTool('get_research', { research_id: researchId, view: 'everything' });
    expect(badView.isError).toBe(true);
    expect(badView.content[0].text).toContain('view');
    expect(errorOf(await client.callTool('list_research', { cursor: 'abc' }))).toMatchObject({ field: 'cursor' });
  });

  it('out of credits is a tool error with the API\'s code and where to get more', async () => {
    const broke = await stack.createCustomer('free');
    await stack.orm.em.fork().getConnection().execute('update account set credits_used = credit_limit where id = ?', [broke.accountId]);
    const client = await connectMcp(stack.apiUrl, broke.key, 'v2-legacy');
    const body = errorOf(await client.callTool('research_prospect', { email: people[2] }));
    await client.close();
    expect(body.error).toBe('trial_limit_reached');
    expect(body.message).toContain('Billing');
  });

  describe('get_research and the resource', () => {
    it('full is the status endpoint\'s reply byte for byte; research://{id} serves the same', async () => {
      const status = await fetch(new URL(`/research-status/${researchId}`, stack.apiUrl), { headers: { authorization: `Bearer ${customer.key}` } });
      const expected = await status.text();
      for (const line of CLIENT_LINES) {
        const client = clients.get(line)!;
        const full = await call(client, 'get_research', { research_id: researchId, view: 'full' });
        expect(full.content[0].text, line).toBe(expected);
        expect(full.structuredContent, line).toEqual(JSON.parse(expected));
        const resource = await client.readResource(`research://${researchId}`);
        expect(resource.contents[0]!.text, line).toBe(expected);
      }
    });
  });

  it('list_research: the account\'s jobs, with their source, filtered by e-mail', async () => {
    const all = await call(clients.get('v2-auto')!, 'list_research', {});
    expect(all.structuredContent.jobs.map((job: { research_id: string }) => job.research_id)).toContain(researchId);
    expect(all.structuredContent.jobs.every((job: { source: string }) => job.source === 'mcp')).toBe(true);
    expect(all.structuredContent.next_cursor).toBeNull();
    const one = await call(clients.get('v1')!, 'list_research', { email: people[0], status: 'completed' });
    expect(one.structuredContent.jobs.map((job: { research_id: string }) => job.research_id)).toEqual([researchId]);
  });

  it('the ledger names the source of the credit: mcp', async () => {
    const em = stack.orm.em.fork();
    const usage = await usageOfCycle(em, await em.findOneOrFail(Account, { id: customer.accountId }));
    expect(usage.ledger.find((entry) => entry.researchId === researchId)).toMatchObject({ kind: 'consume', source: 'mcp' });
  });

  it('another account\'s research_id is not found, by tool and by resource', async () => {
    const client = await connectMcp(stack.apiUrl, other.key, 'v2-auto');
    expect(errorOf(await client.callTool('get_research', { research_id: researchId, max_wait_seconds: 0 })).error).toBe('not_found');
    await expect(client.readResource(`research://${researchId}`)).rejects.toThrow();
    expect((await client.callTool('list_research', {})).structuredContent.jobs).toEqual([]);
    await client.close();
  });
});

describe('research_list and get_list', () => {
  it('makes a List with the same checks of each address, then reads its progress; another account finds no such list', async () => {
    const emails = [people[2]!, people[3]!, 'not an address', people[2]!];
    const before = await creditsUsed(customer.accountId);
    const made = await call(clients.get('v2-legacy')!, 'research_list', { emails });
    const structured = made.structuredContent;
    expect(structured).toMatchObject({ status: 'running', accepted: 2, credits_to_use: 2 });
    expect(structured.refused).toHaveLength(2);
    expect(structured.refused.map((row: { reason: string }) => row.reason).join(' ')).toMatch(/Invalid address/);
    expect(structured.refused.map((row: { reason: string }) => row.reason).join(' ')).toMatch(/Duplicate/);
    expect(structured.cost.credits_left).toBe(600 - before);
    const read = await call(clients.get('v1')!, 'get_list', { list_id: structured.list_id });
    expect(read.structuredContent.rows.map((row: { email: string }) => row.email).sort()).toEqual([people[2], people[3]].sort());

    const stranger = await connectMcp(stack.apiUrl, other.key, 'v1');
    expect(errorOf(await stranger.callTool('get_list', { list_id: structured.list_id })).error).toBe('not_found');
    await stranger.close();
  });
});

describe('a page that tries to instruct the model', () => {
  it('is data in the result: it steers no insight', async () => {
    const [target] = pickPeople(stack, 1, { knownTo: 'both', companyKnownTo: 'both', withPromptInjection: true });
    const fresh = await stack.createCustomer('scale');
    const client = await connectMcp(stack.apiUrl, fresh.key, 'v2-auto');
    const result = await call(client, 'get_research', {
      research_id: (await call(client, 'research_prospect', { email: target!.person.email, max_wait_seconds: 0 })).structuredContent.research_id,
      view: 'full',
      max_wait_seconds: 25,
    });
    await client.close();
    const { prospect, company } = result.structuredContent.data;
    expect(prospect.posts.some((post: { text: string }) => PROMPT_INJECTIONS.some((text) => post.text.includes(text)))).toBe(true);
    expect(JSON.stringify(result.structuredContent)).not.toMatch(/"admin"/);
    const generated = [prospect.summary, ...prospect.opening_talk, ...company.insights, ...company.problems];
    for (const text of generated) {
      expect(text.trim()).not.toBe('APPROVED');
      expect(text).not.toMatch(/system prompt/i);
    }
  });
});

describe('the HTTP endpoint', () => {
  const mcpUrl = () => new URL('/mcp', stack.apiUrl);
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const post = (headers: Record<string, string>, body = initialize) =>
    fetch(mcpUrl(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });

  it('refuses a foreign Origin and Host with 403, takes its own Origin', async () => {
    expect((await post({ authorization: `Bearer ${customer.key}`, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${customer.key}`, origin: 'null' })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${customer.key}`, origin: new URL(stack.apiUrl).origin })).status).toBe(200);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(mcpUrl(), { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject);
      request.end(initialize);
    });
    expect(status).toBe(403);
  });

  it('asks for a key with 401 and WWW-Authenticate; answers GET and DELETE 405; keeps the API\'s 64 KiB body limit', async () => {
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await post({ authorization: 'Bearer svc_live_unknown' })).status).toBe(401);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(mcpUrl(), { method, headers: { authorization: `Bearer ${customer.key}`, accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
    }
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'research_list', arguments: { emails: ['x'.repeat(70_000)] } } });
    expect((await post({ authorization: `Bearer ${customer.key}` }, huge)).status).toBe(413);
  });
});
