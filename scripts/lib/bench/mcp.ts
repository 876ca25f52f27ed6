import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { BenchStack } from './bench-stack.ts';
import { asLatencyMap, type EndpointLatencies } from './critical-path.ts';
import { runJob, summarise, type Percentiles } from './research-client.ts';

export interface McpUncachedResult {
  jobs: number;
  /** Tool calls (research_prospect, then get_research) until the reply was `completed`. */
  callsToComplete: Percentiles;
  /** The longest silence a client saw while a call was open: call start, each progress notification, call end. */
  progressGapMs: { max: number; p95: number };
  failed: number;
}

export interface McpCachedResult {
  calls: number;
  /** research_prospect for a prospect the account's cache holds, called → `completed` result, end to end. */
  callMs: Percentiles;
  notCompleted: number;
}

async function connect(apiUrl: string, apiKey: string): Promise<Client> {
  // The SDK's defaults (60 s request timeout, no reset on progress): what agents run with.
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', apiUrl), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  return client;
}

type Reply = { research_id: string; status: string };

/** Uncached research through research_prospect (default max_wait_seconds) at the stand-ins' fixed latencies, one job at a time. */
export async function measureMcpUncached(
  stack: BenchStack,
  options: { emails: string[]; providerLatenciesMs: EndpointLatencies; modelLatencyMs: number; log: (line: string) => void },
): Promise<McpUncachedResult> {
  await stack.setProviderLatency(asLatencyMap(options.providerLatenciesMs));
  await stack.setModelLatency(options.modelLatencyMs);
  const client = await connect(stack.apiUrl, await stack.newApiKey('mcp-uncached'));
  const calls: number[] = [];
  const gaps: number[] = [];
  let failed = 0;
  try {
    for (const email of options.emails) {
      options.log(`MCP: uncached research of ${email}…`);
      let reply: Reply | null = null;
      let count = 0;
      while (!reply || reply.status === 'queued' || reply.status === 'processing') {
        const marks = [performance.now()];
        const request = reply
          ? { name: 'get_research', arguments: { research_id: reply.research_id } }
          : { name: 'research_prospect', arguments: { email } };
        const result = await client.callTool(request, { onprogress: () => marks.push(performance.now()) });
        marks.push(performance.now());
        gaps.push(...marks.slice(1).map((at, index) => at - marks[index]!));
        count += 1;
        reply = result.structuredContent as Reply;
      }
      if (reply.status !== 'completed') failed += 1;
      calls.push(count);
    }
  } finally {
    await client.close();
  }
  const gapSummary = summarise(gaps, 0);
  return { jobs: options.emails.length, callsToComplete: summarise(calls, 0), progressGapMs: { max: Math.round(Math.max(...gaps)), p95: gapSummary.p95 }, failed };
}

/**
 * Cache hits through research_prospect: each prospect researched once over
 * the HTTP API first (filling the account's cache), then once through MCP,
 * a new job the cache answers. Run without provider latency.
 */
export async function measureMcpCached(stack: BenchStack, options: { emails: string[]; log: (line: string) => void }): Promise<McpCachedResult> {
  const apiKey = await stack.newApiKey('mcp-cached');
  options.log(`MCP: filling the cache with ${options.emails.length} prospects…`);
  for (const email of options.emails) await runJob(stack.apiUrl, apiKey, email);
  const client = await connect(stack.apiUrl, apiKey);
  const samples: number[] = [];
  let notCompleted = 0;
  try {
    for (const email of options.emails) {
      const started = performance.now();
      const result = await client.callTool({ name: 'research_prospect', arguments: { email } });
      samples.push(performance.now() - started);
      if ((result.structuredContent as Reply).status !== 'completed') notCompleted += 1;
    }
  } finally {
    await client.close();
  }
  return { calls: samples.length, callMs: summarise(samples), notCompleted };
}
