import autocannon from 'autocannon';
import type { BenchStack } from './bench-stack.ts';
import { runJob } from './research-client.ts';

export interface StatusResult {
  connections: number;
  durationSeconds: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number; mean: number };
  requests: number;
  /** Bytes per reply, headers included: the completed job's full result. */
  replyBytes: number;
  errors: number;
  non2xx: number;
}

/**
 * GET /research-status/{id} of one completed job at `connections` connections
 * (autocannon, in this process; it shares the two cores with the stack, as a
 * client on the same machine would).
 */
export async function measureStatusEndpoint(stack: BenchStack, options: { email: string; connections: number; durationSeconds: number }): Promise<StatusResult> {
  const apiKey = await stack.newApiKey('status');
  const job = await runJob(stack.apiUrl, apiKey, options.email);
  if (job.status !== 'completed') throw new Error(`the job polled by the status benchmark ended ${job.status}`);
  const url = `${stack.apiUrl}/research-status/${job.researchId}`;
  const headers = { authorization: `Bearer ${apiKey}` };
  // A short unmeasured run: JIT and connection set-up are not what is measured.
  await autocannon({ url, connections: options.connections, duration: 2, headers });
  const result = await autocannon({ url, connections: options.connections, duration: options.durationSeconds, headers });
  return {
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    requestsPerSecond: Math.round(result.requests.total / result.duration),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, mean: Math.round(result.latency.mean * 10) / 10 },
    requests: result.requests.total,
    replyBytes: Math.round(result.throughput.total / result.requests.total),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}
