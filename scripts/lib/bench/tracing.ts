import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchStack } from './bench-stack.ts';
import { candidateEmails } from './critical-path.ts';
import { runClosedLoop, runJob } from './research-client.ts';
import { cpuBetween, cpuPerJob, stackCpuMs, type CpuPerJob } from './stack-cpu.ts';

export interface TracingRun {
  jobs: number;
  failed: number;
  cpu: CpuPerJob;
}

export interface TracingBenchResult {
  inFlight: number;
  /** The API and the workers as they run by default: no OTLP endpoint, no SDK loaded. */
  off: TracingRun;
  /** The same jobs' work with every process exporting its spans over OTLP/HTTP. */
  on: TracingRun & { spansPerJob: number; exportedKiBPerJob: number };
  /** on − off, ms of CPU per job. */
  costMs: number;
}

/**
 * An OTLP/HTTP endpoint that accepts every export and counts its spans: the
 * collector's own work stays out of the figures (it runs elsewhere in
 * production), the exporters' in the processes does not.
 */
async function startSpanSink(): Promise<{ url: string; spans: () => number; bytes: () => number; close(): Promise<void> }> {
  let spans = 0;
  let bytes = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      bytes += body.length;
      try {
        const parsed = JSON.parse(body.toString()) as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
        for (const resource of parsed.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
      } catch {
        // not JSON (a protobuf exporter): counted in bytes only
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const EXPORT_WAIT_MS = 6_000;

async function measure(stack: BenchStack, label: string, emails: string[], inFlight: number, warmup: number): Promise<TracingRun> {
  // A fresh account: every prospect uncached, so every part and the model run.
  const apiKey = await stack.newApiKey(label);
  await runClosedLoop(warmup, 2, (index) => runJob(stack.apiUrl, apiKey, emails[index]!));
  const measured = emails.slice(warmup);
  const before = stackCpuMs();
  const { results } = await runClosedLoop(measured.length, inFlight, (index) => runJob(stack.apiUrl, apiKey, measured[index]!));
  // The batch span processor exports every 5 s: its last export belongs to these jobs (waited for with tracing off too, alike).
  await new Promise((resolve) => setTimeout(resolve, EXPORT_WAIT_MS));
  return { jobs: results.length, failed: results.filter((each) => each.status !== 'completed').length, cpu: cpuPerJob(cpuBetween(before, stackCpuMs()), results.length) };
}

/**
 * CPU per uncached job with tracing off, then with it on (the API and the
 * workers restarted with OTEL_EXPORTER_OTLP_ENDPOINT), the same prospects on
 * fresh accounts both times. Leaves the stack with tracing on: run it last.
 */
export async function measureTracing(stack: BenchStack, options: { jobs: number; inFlight: number; warmupJobs: number; log: (line: string) => void }): Promise<TracingBenchResult> {
  const emails = candidateEmails(options.warmupJobs + options.jobs);
  options.log(`Tracing: ${options.jobs} uncached jobs, ${options.inFlight} in flight, tracing off…`);
  const off = await measure(stack, 'tracing-off', emails, options.inFlight, options.warmupJobs);
  const sink = await startSpanSink();
  try {
    options.log('Tracing: restarting the API and the workers with tracing on (OTLP/HTTP to a sink that only counts)…');
    await stack.restartApps({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
    options.log(`Tracing: the same ${options.jobs} jobs on a fresh account, tracing on…`);
    const spansBefore = sink.spans();
    const bytesBefore = sink.bytes();
    const on = await measure(stack, 'tracing-on', emails, options.inFlight, options.warmupJobs);
    const perJob = (value: number) => Math.round((value / (options.jobs + options.warmupJobs)) * 10) / 10;
    return {
      inFlight: options.inFlight,
      off,
      on: { ...on, spansPerJob: perJob(sink.spans() - spansBefore), exportedKiBPerJob: perJob((sink.bytes() - bytesBefore) / 1024) },
      costMs: Math.round((on.cpu.stackMs - off.cpu.stackMs) * 10) / 10,
    };
  } finally {
    await sink.close();
  }
}

export function formatTracingResults(result: TracingBenchResult): string {
  const line = (label: string, run: TracingRun) =>
    `  ${label.padEnd(12)}${run.cpu.stackMs} ms per job (Temporal ${run.cpu.byPart.temporal} / workers ${run.cpu.byPart.worker} / API ${run.cpu.byPart.api} / PostgreSQL ${run.cpu.byPart.postgres}), ${run.jobs} jobs, ${run.failed} failed`;
  return [
    `tracing: CPU per uncached job, ${result.inFlight} in flight`,
    line('off', result.off),
    line('on', result.on),
    `  cost        ${result.costMs} ms per job; ${result.on.spansPerJob} spans and ${result.on.exportedKiBPerJob} KiB exported per job`,
  ].join('\n');
}
