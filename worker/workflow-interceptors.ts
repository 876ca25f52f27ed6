// Runs inside the workflow sandbox: the worker bundles it with the workflows
// (WORKFLOW_INTERCEPTOR_MODULES in worker/create-worker.ts). Only
// @temporalio/workflow and Temporal's own OpenTelemetry workflow interceptors.
//
// Tracing is gated by the run itself, not by the worker's settings: a run
// whose start carries the trace header (a client with tracing on sent it, and
// it is in the history) goes through Temporal's OpenTelemetry interceptors;
// any other run, every history recorded before tracing existed included,
// passes straight through, so its commands and their order are exactly as
// before. A replay then takes the same path as the original run whatever the
// replaying worker's settings.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type {
  ActivityInput,
  ContinueAsNewInput,
  DisposeInput,
  LocalActivityInput,
  Next,
  StartChildWorkflowExecutionInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** The header Temporal's OpenTelemetry client interceptor writes the caller's trace context into. */
export const TRACE_HEADER = '_tracer-data';

interface RunTracing {
  inbound?: OpenTelemetryInboundInterceptor;
  outbound?: OpenTelemetryOutboundInterceptor;
}

class GatedInbound implements WorkflowInboundCallsInterceptor {
  private readonly run: RunTracing;
  constructor(run: RunTracing) {
    this.run = run;
  }

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (input.headers[TRACE_HEADER] === undefined) return next(input);
    // Built only for a traced run: Temporal's interceptors set up a tracer provider in the sandbox when constructed.
    this.run.inbound = new OpenTelemetryInboundInterceptor();
    this.run.outbound = new OpenTelemetryOutboundInterceptor();
    return this.run.inbound.execute(input, next);
  }
}

class GatedOutbound implements WorkflowOutboundCallsInterceptor {
  private readonly run: RunTracing;
  constructor(run: RunTracing) {
    this.run = run;
  }

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return this.run.outbound ? this.run.outbound.scheduleActivity(input, next) : next(input);
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return this.run.outbound ? this.run.outbound.scheduleLocalActivity(input, next) : next(input);
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return this.run.outbound ? this.run.outbound.startChildWorkflowExecution(input, next) : next(input);
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return this.run.outbound ? this.run.outbound.continueAsNew(input, next) : next(input);
  }
}

class GatedInternals implements WorkflowInternalsInterceptor {
  private readonly otel = new OpenTelemetryInternalsInterceptor();
  private readonly run: RunTracing;
  constructor(run: RunTracing) {
    this.run = run;
  }

  dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>): void | Promise<void> {
    return this.run.inbound ? this.otel.dispose(input, next) : next(input);
  }
}

/** Called once per run: the run's own state decides whether it is traced. */
export const interceptors = (): WorkflowInterceptors => {
  const run: RunTracing = {};
  return { inbound: [new GatedInbound(run)], outbound: [new GatedOutbound(run)], internals: [new GatedInternals(run)] };
};
