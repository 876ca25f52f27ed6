// The OpenTelemetry SDK of one process, loaded by lib/tracing.ts only when
// tracing is on. OpenTelemetry JS 1.x throughout: Temporal's interceptors
// (@temporalio/interceptors-opentelemetry 1.24) build the workflows' spans
// with it, and a 2.x exporter would drop those spans' parent links.
import { createRequire } from 'node:module';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { RESEARCH_WORKFLOW_TYPE } from '../domain/research/contract.ts';
import type { ActiveTracing, SpanAttributes, SpanHandle, SpanOptions, TracingSettings } from './tracing.ts';
import { scrubSql, scrubUrl } from './trace-attributes.ts';

const TRACER_NAME = 'prospect-enrichment';
const SPAN_KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;
/** Attributes an outbound call inherits from where it is made (provider, part, attempt), kept in the context. */
const CALL_ATTRIBUTES = Symbol.for('prospect-enrichment.call-attributes');

const defined = (attributes: SpanAttributes) =>
  Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Record<string, string | number | boolean>;

/**
 * URLs in span attributes lose their query values and any path segment that
 * holds an e-mail address: provider lookups put the prospect's address there,
 * and some APIs take a key as a query parameter. (SQL: instrumentPg below.)
 */
class ScrubbingProcessor implements SpanProcessor {
  onStart(span: Span & ReadableSpan): void {
    for (const name of ['url.full', 'http.url']) {
      const value = span.attributes[name];
      if (typeof value === 'string') span.setAttribute(name, scrubUrl(value));
    }
    const query = span.attributes['url.query'];
    if (typeof query === 'string' && query !== '') span.setAttribute('url.query', scrubUrl(`http://x/${query.startsWith('?') ? query : `?${query}`}`).slice('http://x/'.length));
  }
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * pg is loaded through ESM by MikroORM before this runs, so the
 * instrumentation's require hook would never see it: its patch is applied
 * to the loaded module instead (the prototypes are shared, so every client
 * and pool is covered). Queries outside any span (the relays' polling) make
 * no trace of their own. Statements lose the values MikroORM writes into
 * them (lib/trace-attributes.ts).
 */
function instrumentPg(provider: NodeTracerProvider): void {
  const instrumentation = new PgInstrumentation({
    enabled: false,
    requireParentSpan: true,
    // The statement is set after the span starts (no span processor sees it): its values are taken out here.
    requestHook: (span, { query }) => span.setAttribute('db.statement', scrubSql(query.text)),
  });
  instrumentation.setTracerProvider(provider);
  const require = createRequire(import.meta.url);
  const pg = require('pg') as unknown;
  const version = (require('pg/package.json') as { version: string }).version;
  const definition = instrumentation.getModuleDefinitions().find((each: InstrumentationModuleDefinition) => each.name === 'pg');
  definition?.patch?.(pg, version);
}

/**
 * Temporal's activity span, plus what finds a job: the workflow's id and type,
 * and for a research job its research id (the workflow id).
 */
class ActivitySpanInterceptor extends OpenTelemetryActivityInboundInterceptor {
  override execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { info } = this.ctx;
    return super.execute(input, (inner) => {
      const workflowId = info.workflowExecution?.workflowId;
      trace.getActiveSpan()?.setAttributes(
        defined({
          'workflow.id': workflowId,
          'workflow.type': info.workflowType,
          research_id: info.workflowType === RESEARCH_WORKFLOW_TYPE ? workflowId : undefined,
          attempt: info.attempt,
        }),
      );
      return next(inner);
    });
  }
}

export async function startTracingSdk(settings: TracingSettings): Promise<ActiveTracing> {
  const resource = Resource.default()
    .merge(detectResourcesSync({ detectors: [envDetectorSync] }))
    .merge(new Resource({ 'service.name': settings.serviceName }));
  // Headers and timeout come from OTEL_EXPORTER_OTLP_* (the exporter reads them).
  const exportProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }));
  // The sampler comes from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (parent-based, always on by default).
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new ScrubbingProcessor(), exportProcessor] });
  provider.register(); // W3C traceparent (OTEL_PROPAGATORS) and AsyncLocalStorage context
  const tracer = provider.getTracer(TRACER_NAME);

  const undici = new UndiciInstrumentation({
    requireParentforSpans: true,
    // provider, part, attempt: from the context of the call (withCallAttributes below)
    startSpanHook: () => (context.active().getValue(CALL_ATTRIBUTES) as Record<string, string | number> | undefined) ?? {},
  });
  undici.setTracerProvider(provider);
  undici.enable();
  instrumentPg(provider);

  const handleOf = (span: Span): SpanHandle => ({
    setAttributes: (attributes) => span.setAttributes(defined(attributes)),
    updateName: (name) => span.updateName(name),
    setError: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
  });

  return {
    async inSpan(name, attributes, fn, options: SpanOptions = {}) {
      const parent: Context = options.carrier ? propagation.extract(context.active(), options.carrier) : context.active();
      return tracer.startActiveSpan(name, { kind: SPAN_KINDS[options.kind ?? 'internal'], attributes: defined(attributes) }, parent, async (span) => {
        try {
          return await fn(handleOf(span));
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    withCallAttributes(attributes, fn) {
      const outer = (context.active().getValue(CALL_ATTRIBUTES) as SpanAttributes | undefined) ?? {};
      return context.with(context.active().setValue(CALL_ATTRIBUTES, { ...outer, ...defined(attributes) }), fn);
    },
    setAttributes(attributes) {
      trace.getActiveSpan()?.setAttributes(defined(attributes));
    },
    ids() {
      const spanContext = trace.getActiveSpan()?.spanContext();
      return spanContext && trace.isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : null;
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ?? null;
    },
    clientInterceptors: [new OpenTelemetryWorkflowClientInterceptor()],
    workerOptions: {
      interceptors: {
        activity: [(ctx) => ({ inbound: new ActivitySpanInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
      },
      // The workflows' spans, made in the sandbox, leave through this sink once per real run (never on replay).
      sinks: { exporter: makeWorkflowExporter(exportProcessor, resource) },
    },
    async shutdown() {
      undici.disable();
      // A collector that is gone at exit costs the last spans, never the process's orderly stop.
      await provider.shutdown().catch(() => {});
    },
  };
}
