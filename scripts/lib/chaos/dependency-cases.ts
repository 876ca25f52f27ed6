import { ZCompletedStatus, type ResearchData } from '../../../domain/research/reply.ts';
import { seconds, settle, submitJobs, type CaseContext, type ChaosCase } from './case-kit.ts';
import { getStatus, mapLimited, postJson, type SandboxPerson } from './research-client.ts';

/** docs/architecture.md#the-research-path: optional parts degrade to null/[]; provider trouble is never the caller's bill. */
export const providerFaultsCase: ChaosCase = {
  id: 4,
  title: '30 % provider errors and timeouts',
  peopleNeeded: (settings) => settings.jobs,
  providerLatency: { meanMs: 100, jitterMs: 50 },
  async run(context) {
    const faults = { '*': { serverErrorRate: 0.15, unavailableRate: 0.05, timeoutRate: 0.1 } };
    await postJson(`${context.stack.providerUrl}/__admin/config`, { faults });
    context.log('provider world: 15 % 500, 5 % 503, 10 % held past the client timeout, on every endpoint');
    const started = Date.now();
    await submitJobs(context, context.people);
    await settle(context, Date.now());
    const calls = (await (await fetch(`${context.stack.providerUrl}/__admin/calls`)).json()) as { total: number };
    context.log(`${calls.total} provider calls in ${seconds(Date.now() - started)}`);

    const degradedParts = new Map<string, number>();
    let degradedJobs = 0;
    for (const { person, data } of await completedReplies(context)) {
      if (data.prospect?.name != null && data.prospect.name !== person.fullName) context.problem(`${person.email}: prospect.name is ${data.prospect.name}, not ${person.fullName} or null`);
      if (data.company?.name != null && data.company.name !== person.company) context.problem(`${person.email}: company.name is ${data.company.name}, not ${person.company} or null`);
      const missing = Object.entries({
        'prospect.name': data.prospect?.name,
        'prospect.posts': data.prospect?.posts,
        company: data.company,
        'company.posts': data.company?.posts,
        'company.news': data.company?.news,
        'company.technologies': data.company?.technologies,
      }).filter(([, value]) => value == null);
      if (missing.length > 0) degradedJobs += 1;
      for (const [part] of missing) degradedParts.set(part, (degradedParts.get(part) ?? 0) + 1);
    }
    const parts = [...degradedParts].map(([part, count]) => `${part} ${count}×`).join(', ');
    context.log(`${degradedJobs} of ${context.people.length} jobs completed with degraded parts null${parts ? ` (${parts})` : ''}`);
    if (degradedJobs === 0) context.note('no part ended null: the provider clients absorbed every fault by retrying');
  },
};

// The AI-written fields of a reply (docs/api.md#the-result; title and description are the model's English renderings).
const AI_PROSPECT_FIELDS = ['summary', 'opening_talk', 'title'] as const;
const AI_COMPANY_FIELDS = ['description', 'problems', 'services', 'icp', 'synergy_points', 'discovery_questions', 'insights'] as const;

/** docs/api.md#refunds: the AI step failing while data is returned completes the job, not refunded. */
export const aiDownCase: ChaosCase = {
  id: 5,
  title: 'AI endpoint down',
  peopleNeeded: (settings) => settings.jobs,
  async run(context) {
    await postJson(`${context.stack.modelUrl}/__admin/config`, { faults: { mode: 'down' } });
    context.log('model sandbox: down (every connection dropped)');
    await submitJobs(context, context.people);
    await settle(context, Date.now());
    let withData = 0;
    for (const { person, data, meta } of await completedReplies(context)) {
      const written = [
        ...AI_PROSPECT_FIELDS.map((field) => [`prospect.${field}`, data.prospect?.[field]] as const),
        ...AI_COMPANY_FIELDS.map((field) => [`company.${field}`, data.company?.[field]] as const),
      ].filter(([, value]) => value != null);
      if (written.length > 0) context.problem(`${person.email}: AI fields not null with the model down: ${written.map(([name]) => name).join(', ')}`);
      if ((meta?.ai as { generated?: boolean } | undefined)?.generated !== false) context.problem(`${person.email}: _meta.ai.generated is not false`);
      if (data.prospect?.name) withData += 1;
    }
    context.log(`${withData} of ${context.people.length} completed jobs carry provider data, every AI field null`);
    if (withData === 0) context.problem('no job returned any data: the case shows nothing about "completed with AI fields null"');
  },
};

/** Every job of the case read back through the API; a job that is not `completed` is a broken promise here. */
async function completedReplies(context: CaseContext): Promise<Array<{ person: SandboxPerson; data: ResearchData; meta: Record<string, unknown> | undefined }>> {
  const byEmail = new Map(context.people.map((person) => [person.email, person]));
  const { rows } = await context.stack.sql.query<{ id: string; email: string }>('select id, email from research_job where account_id = $1', [context.customer.accountId]);
  const replies = await mapLimited(rows, 8, async (row) => ({ row, reply: await getStatus(context.stack.apiUrl, context.customer.key, row.id) }));
  return replies.flatMap(({ row, reply }) => {
    const parsed = ZCompletedStatus.safeParse(reply.body);
    if (!parsed.success) {
      context.problem(`${row.id}: not a completed reply: ${JSON.stringify(reply.body).slice(0, 200)}`);
      return [];
    }
    return [{ person: byEmail.get(row.email)!, data: parsed.data.data, meta: parsed.data._meta as Record<string, unknown> | undefined }];
  });
}
