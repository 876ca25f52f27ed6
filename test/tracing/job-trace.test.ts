// One trace per job, read back from a real Jaeger (docs/operations.md#traces):
// the API and each worker role are processes of their own with tracing on,
// exporting over OTLP/HTTP to Jaeger's in-memory store.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../db/entities/index.ts';
import { listRunWorkflowId } from '../../domain/lists/lists.ts';
import { loadWebhookConfig } from '../../integrations/webhooks/config.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ensureJaeger, startJaeger, type JaegerServer } from '../../scripts/lib/jaeger.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../sandbox/webhook-receiver/server.ts';
import { createListDraft, startList } from '../../services/lists/lists.ts';
import { createEndpoint } from '../../services/webhooks/webhooks.ts';
import { startAppProcess, type AppProcess } from '../helpers/app-process.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { until } from '../helpers/until.ts';
import { WEBHOOK_TEST_ENV } from '../helpers/webhook-delivery.ts';

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
  processID: string;
}
interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

let stack: TestStack;
let jaeger: JaegerServer;
let receiver: WebhookReceiver;
const processes: AppProcess[] = [];
let apiUrl: string;

beforeAll(async () => {
  const binary = await ensureJaeger((line) => process.stderr.write(`[jaeger] ${line}\n`));
  stack = await startTestStack({ withWorker: false });
  const ports = { otlpHttp: await freePort(), otlpGrpc: await freePort(), ui: await freePort(), queryGrpc: await freePort(), health: await freePort() };
  jaeger = await startJaeger({ binary, ports, workDir: join(process.env.TEST_WORK_DIR!, `jaeger-${randomBytes(4).toString('hex')}`) });
  receiver = await startWebhookReceiver({ port: 0 });
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '100', ...WEBHOOK_TEST_ENV, PROVIDER_TIMEOUT_MS: '1500' };
  const api = await startAppProcess(stack, 'api/main.ts', [], tracing);
  processes.push(api);
  for (const role of ['research', 'webhooks', 'housekeeping']) processes.push(await startAppProcess(stack, 'worker/main.ts', [role], tracing));
  apiUrl = api.url;
  await until(async () => (await fetch(`${api.url}/readyz`).catch(() => null))?.ok === true, 60_000);
  for (const worker of processes.slice(1)) await until(async () => (await fetch(`${worker.url}/readyz`).catch(() => null))?.ok === true, 120_000);
}, 1_800_000);

afterAll(async () => {
  for (const each of processes) each.child.kill('SIGTERM');
  await Promise.all(processes.map((each) => (each.child.exitCode === null ? new Promise((resolve) => each.child.once('exit', resolve)) : null)));
  await receiver?.close();
  await jaeger?.process.stop();
  await stack?.stop();
});

const tag = (span: JaegerSpan, key: string) => span.tags.find((each) => each.key === key)?.value;
const parentOf = (span: JaegerSpan) => span.references.find((ref) => ref.refType === 'CHILD_OF')?.spanID;

async function traceOf(traceId: string, isComplete: (trace: JaegerTrace) => boolean): Promise<JaegerTrace> {
  let found: JaegerTrace | null = null;
  await until(async () => {
    const reply = await fetch(`${jaeger.uiUrl}/api/traces/${traceId}`);
    if (!reply.ok) return false;
    found = ((await reply.json()) as { data: JaegerTrace[] }).data[0] ?? null;
    return found !== null && isComplete(found);
  }, 60_000);
  return found!;
}

/** Whether `span` descends from `ancestor` in `trace`. */
function descendsFrom(trace: JaegerTrace, span: JaegerSpan, ancestor: JaegerSpan): boolean {
  const byId = new Map(trace.spans.map((each) => [each.spanID, each]));
  for (let parent = parentOf(span); parent; parent = byId.get(parent) && parentOf(byId.get(parent)!)) {
    if (parent === ancestor.spanID) return true;
  }
  return false;
}

function research(key: string, email: string, traceparent: string) {
  return fetch(`${apiUrl}/research`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent },
    body: JSON.stringify({ email }),
  });
}

async function jobEnded(researchId: string): Promise<string> {
  let status = '';
  await until(async () => {
    const [row] = await stack.orm.em.fork().getConnection().execute('select status from research_job where id = ?', [researchId]);
    status = row?.status;
    return status === 'completed' || status === 'failed';
  }, 120_000);
  return status;
}

describe('a job researched through the API with a traceparent', () => {
  it('is one trace from the API span through the workflow, each provider and the model, the database and the webhook attempt', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    await createEndpoint(stack.orm.em.fork(), loadWebhookConfig(WEBHOOK_TEST_ENV).secretKey, { accountId, url: `${receiver.url}/hooks/ok`, events: ['research.completed', 'research.failed'] }, new Date());
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 3);
    const accepted = await research(key, person.email, `00-${traceId}-${callerSpanId}-01`);
    expect(accepted.status).toBe(202);
    const { research_id: researchId } = (await accepted.json()) as { research_id: string };
    expect(await jobEnded(researchId)).toBe('completed');

    const trace = await traceOf(traceId, (found) => found.spans.some((span) => span.operationName === 'webhook delivery attempt'));
    const named = (name: string | RegExp) => trace.spans.filter((span) => (typeof name === 'string' ? span.operationName === name : name.test(span.operationName)));
    const [apiSpan] = named('POST /research');
    expect(apiSpan, 'the API request span').toBeDefined();
    expect(parentOf(apiSpan)).toBe(callerSpanId);
    expect(tag(apiSpan, 'research_id')).toBe(researchId);
    expect(tag(apiSpan, 'account.id')).toBe(accountId);
    expect(trace.processes[apiSpan.processID].serviceName).toBe('prospect-api');

    const [start] = named('StartWorkflow:researchWorkflow');
    expect(parentOf(start)).toBe(apiSpan.spanID);
    const [run] = named('RunWorkflow:researchWorkflow');
    expect(parentOf(run)).toBe(start.spanID);
    const lookup = named('RunActivity:lookupParts')[0];
    expect(descendsFrom(trace, lookup, run)).toBe(true);
    expect(tag(lookup, 'research_id')).toBe(researchId);
    expect(trace.processes[lookup.processID].serviceName).toBe('prospect-worker-research');

    // Every provider call: an HTTP client span under the lookup, with provider, part and attempt, and no e-mail anywhere.
    const providerCalls = trace.spans.filter((span) => tag(span, 'provider') !== undefined && tag(span, 'provider') !== 'ai');
    expect(new Set(providerCalls.map((span) => tag(span, 'provider')))).toEqual(new Set(['pdl', 'apollo', 'social']));
    for (const call of providerCalls) {
      expect(descendsFrom(trace, call, lookup), call.operationName).toBe(true);
      expect(tag(call, 'part')).toEqual(expect.any(String));
      expect(tag(call, 'attempt')).toBe(1);
    }
    expect(JSON.stringify(trace.spans.map((span) => span.tags))).not.toContain(person.email);
    expect(JSON.stringify(trace.spans.map((span) => span.tags))).not.toContain(encodeURIComponent(person.email));

    const [modelCall] = trace.spans.filter((span) => tag(span, 'provider') === 'ai');
    expect(tag(modelCall, 'part')).toBe('insights');
    expect(descendsFrom(trace, modelCall, named('RunActivity:generateInsights')[0])).toBe(true);

    // Database writes: the API's insert of the job and the worker's completion, each under its own span.
    const writes = trace.spans.filter((span) => tag(span, 'db.system') === 'postgresql' && /^(insert|update)/i.test(String(tag(span, 'db.statement'))));
    expect(writes.some((span) => descendsFrom(trace, span, apiSpan) && /insert into "research_job"/i.test(String(tag(span, 'db.statement'))))).toBe(true);
    expect(writes.some((span) => descendsFrom(trace, span, run) && /update "research_job"/i.test(String(tag(span, 'db.statement'))))).toBe(true);

    const [attempt] = named('webhook delivery attempt');
    expect(parentOf(attempt)).toBe(apiSpan.spanID);
    expect(tag(attempt, 'research_id')).toBe(researchId);
    expect(tag(attempt, 'webhook.result')).toBe('ended');
    expect(trace.processes[attempt.processID].serviceName).toBe('prospect-worker-webhooks');

    // The traced run's history (its start carries the trace header) replays on the current bundle.
    const history = await stack.temporal.workflow.getHandle(researchId).fetchHistory();
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.header?.fields?.['_tracer-data']).toBeDefined();
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, replayName: 'traced' }, history, researchId);
  }, 300_000);

  it('that fails shows the failing provider calls with their status', async () => {
    const { key } = await stack.createCustomer('growth');
    stack.providerWorld.setFaults({ '*': { serverErrorRate: 1 } });
    const traceId = randomBytes(16).toString('hex');
    const person = samplePerson(stack, { knownTo: 'both' }, 4);
    const accepted = await research(key, person.email, `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    const { research_id: researchId } = (await accepted.json()) as { research_id: string };
    const status = await jobEnded(researchId);
    stack.providerWorld.setFaults(null);

    const trace = await traceOf(traceId, (found) => found.spans.some((span) => span.operationName === 'RunWorkflow:researchWorkflow'));
    const failedCalls = trace.spans.filter((span) => tag(span, 'provider') === 'pdl' && tag(span, 'http.response.status_code') === 500);
    expect(failedCalls.length).toBeGreaterThan(0);
    for (const call of failedCalls) expect(tag(call, 'otel.status_code')).toBe('ERROR');
    // Retried: later attempts of the same call say so.
    expect(Math.max(...failedCalls.map((span) => Number(tag(span, 'attempt'))))).toBeGreaterThan(1);
    // Every provider failing leaves each part unavailable, which degrades to null (activities/enrichment.ts,
    // PART_POLICY): the job completes with what it has, it does not fail.
    expect(status).toBe('completed');
  }, 300_000);
});

describe('a list run', () => {
  it("is the trace its rows' research jobs sit under", async () => {
    const accountId = await stack.createAccount('growth');
    await stack.createKey(accountId);
    const account = await stack.orm.em.fork().findOneOrFail(Account, accountId);
    const emails = stack.providerWorld.world.samplePeople({}, 2).map((person) => person.email);
    const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: emails.join('\n') }, new Date());
    // As if the dashboard's start committed 10 s ago: the research worker's relay starts the run.
    await startList(stack.orm.em.fork(), accountId, draft.id, {}, new Date(Date.now() - 10_000));
    await stack.temporal.workflow.getHandle(listRunWorkflowId(draft.id)).result().catch(async () => {
      await until(async () => {
        const [row] = await stack.orm.em.fork().getConnection().execute(`select count(*)::int as n from research_job where source_ref = ? and status in ('completed', 'failed')`, [draft.id]);
        return row.n === emails.length;
      }, 120_000);
    });
    const [{ id: rowJob }] = await stack.orm.em.fork().getConnection().execute(`select id from research_job where source_ref = ? limit 1`, [draft.id]);
    const history = await stack.temporal.workflow.getHandle(rowJob).fetchHistory();
    const header = history.events?.[0]?.workflowExecutionStartedEventAttributes?.header?.fields?.['_tracer-data'];
    expect(header).toBeDefined();
    const { traceparent } = JSON.parse(Buffer.from(header!.data!).toString()) as { traceparent: string };
    const traceId = traceparent.split('-')[1];

    // The run's own span ends (and is exported) after its rows': wait for both.
    const trace = await traceOf(
      traceId,
      (found) =>
        found.spans.filter((span) => span.operationName === 'RunWorkflow:researchWorkflow').length === emails.length &&
        found.spans.some((span) => span.operationName === 'RunWorkflow:listRunWorkflow'),
    );
    const [listRun] = trace.spans.filter((span) => span.operationName === 'RunWorkflow:listRunWorkflow');
    expect(listRun).toBeDefined();
    const rows = trace.spans.filter((span) => span.operationName === 'RunWorkflow:researchWorkflow');
    for (const row of rows) expect(descendsFrom(trace, row, listRun)).toBe(true);
  }, 300_000);
});
