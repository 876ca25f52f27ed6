// OpenTelemetry traces (docs/operations.md#traces), configured by
// OpenTelemetry's own variables. This module is all the rest of the code
// sees: with tracing off (no OTLP endpoint) it loads no OpenTelemetry code at
// all, and every helper here is a plain call of the function it wraps. The
// SDK lives in lib/tracing-sdk.ts, imported only by `startTracing`.
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import { ConfigError, type Env } from './env.ts';

/** Attribute values a span takes; e-mail addresses and secrets never go in one. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanOptions {
  kind?: 'server' | 'client' | 'internal';
  /** Continue this W3C trace context (`traceparent`, optional `tracestate`) instead of the active one. */
  carrier?: Record<string, string | string[] | undefined>;
}

/** The span `inSpan` runs its function in. */
export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void;
  updateName(name: string): void;
  /** Marks the span failed without an exception (an answer that counts as a failure). */
  setError(message: string): void;
}

/** What lib/tracing-sdk.ts hands back once the SDK runs. */
export interface ActiveTracing {
  inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, options?: SpanOptions): Promise<T>;
  withCallAttributes<T>(attributes: SpanAttributes, fn: () => T): T;
  setAttributes(attributes: SpanAttributes): void;
  /** The active span's ids, for log lines. */
  ids(): { trace_id: string; span_id: string } | null;
  /** The active context as a `traceparent` value. */
  traceparent(): string | null;
  clientInterceptors: WorkflowClientInterceptor[];
  workerOptions: Required<Pick<WorkerOptions, 'interceptors' | 'sinks'>>;
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

export interface TracingSettings {
  isEnabled: boolean;
  /** `service.name`: OTEL_SERVICE_NAME, else `prospect-<role>`. */
  serviceName: string;
  /** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  tracesUrl: string;
}

const EXPORTERS = ['otlp', 'none'];

/**
 * On when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER=otlp asks for
 * the default one (http://localhost:4318); OTEL_TRACES_EXPORTER=none and
 * OTEL_SDK_DISABLED=true turn it off whatever else is set.
 */
export function tracingSettings(role: string, env: Env = process.env): TracingSettings {
  const value = (name: string) => env[name]?.trim() || undefined;
  const exporter = value('OTEL_TRACES_EXPORTER');
  if (exporter && !EXPORTERS.includes(exporter)) {
    throw new ConfigError([`OTEL_TRACES_EXPORTER=${exporter} is not accepted: expected one of ${EXPORTERS.join(', ')} (traces go out over OTLP/HTTP)`]);
  }
  const hasEndpoint = Boolean(value('OTEL_EXPORTER_OTLP_ENDPOINT') ?? value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'));
  const isEnabled = value('OTEL_SDK_DISABLED') !== 'true' && exporter !== 'none' && (hasEndpoint || exporter === 'otlp');
  const base = (value('OTEL_EXPORTER_OTLP_ENDPOINT') ?? 'http://localhost:4318').replace(/\/+$/, '');
  return { isEnabled, serviceName: value('OTEL_SERVICE_NAME') ?? `prospect-${role}`, tracesUrl: value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? `${base}/v1/traces` };
}

let active: ActiveTracing | null = null;

/**
 * Starts the SDK for this process when the environment asks for it; call it
 * first thing in an entry point, before the logger and any client exist.
 */
export async function startTracing(role: string, env: Env = process.env): Promise<boolean> {
  const settings = tracingSettings(role, env);
  if (!settings.isEnabled || active) return Boolean(active);
  const sdk = await import('./tracing-sdk.ts');
  active = await sdk.startTracingSdk(settings);
  return true;
}

export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = null;
  await stopping?.shutdown();
}

export const isTracingOn = (): boolean => active !== null;

/** `fn` inside a span (a child of the active one, or of `options.carrier`); with tracing off, just `fn`. */
export function inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, options?: SpanOptions): Promise<T> {
  return active ? active.inSpan(name, attributes, fn, options) : fn(NO_SPAN);
}

const NO_SPAN: SpanHandle = { setAttributes() {}, updateName() {}, setError() {} };

/**
 * `fn` with attributes that every outbound HTTP span started inside it takes
 * (`provider`, `part`, `attempt`); nested calls add to the outer ones.
 */
export function withCallAttributes<T>(attributes: SpanAttributes, fn: () => T): T {
  return active ? active.withCallAttributes(attributes, fn) : fn();
}

/** Adds attributes to the active span (the API request's, an activity's), if any. */
export function setSpanAttributes(attributes: SpanAttributes): void {
  active?.setAttributes(attributes);
}

export const activeTraceIds = (): { trace_id: string; span_id: string } | null => active?.ids() ?? null;

export const activeTraceparent = (): string | null => active?.traceparent() ?? null;

/** Interceptors for a Temporal Client: with tracing on, a workflow start carries the trace. */
export const temporalClientInterceptors = (): WorkflowClientInterceptor[] => active?.clientInterceptors ?? [];

/**
 * Options for every Worker: with tracing on, activities continue the
 * workflow's trace and the workflows' spans are exported. Off, the workflow
 * span sink is still there, as a no-op: a run started traced elsewhere would
 * otherwise log an unregistered sink at every task.
 */
export function temporalWorkerOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return active?.workerOptions ?? { sinks: { exporter: { export: { fn: () => {} } } } };
}
