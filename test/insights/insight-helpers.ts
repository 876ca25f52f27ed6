import { expect } from 'vitest';
import { ZCompletedStatus } from '../../domain/research/reply.ts';
import type { PeopleFilter } from '../../sandbox/provider-world/world.ts';
import type { WorldCompany, WorldPerson } from '../../sandbox/provider-world/generate-world.ts';
import type { SandboxRequestRecord } from '../../sandbox/model/model-sandbox.ts';
import type { TestStack } from '../helpers/test-stack.ts';

export type Completed = ReturnType<typeof ZCompletedStatus.parse>;

/**
 * People of the sandbox world at distinct companies (so that no two jobs
 * share a company's data), matching `filter` and `accept`.
 */
export function pickPeople(
  stack: TestStack,
  count: number,
  filter: PeopleFilter,
  accept: (person: WorldPerson, company: WorldCompany) => boolean = () => true,
): { person: WorldPerson; company: WorldCompany }[] {
  const { world } = stack.providerWorld;
  const picked: { person: WorldPerson; company: WorldCompany }[] = [];
  const companies = new Set<number>();
  for (const person of world.samplePeople(filter, 5000)) {
    const company = world.companies[person.company];
    if (companies.has(company.index) || !accept(person, company)) continue;
    companies.add(company.index);
    picked.push({ person, company });
    if (picked.length === count) return picked;
  }
  throw new Error(`only ${picked.length} of ${count} sandbox people match ${JSON.stringify(filter)}`);
}

/** Submits one job and waits for its completed reply, parsed by the API's own schema. */
export async function research(stack: TestStack, key: string, email: string): Promise<Completed> {
  const accepted = await stack.api.research(key, { email });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const done = await stack.api.waitForEnd(key, accepted.body.research_id, 90_000);
  expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
  return ZCompletedStatus.parse(done.body);
}

/** The model requests made for one job: those whose data block names its person or company. */
export function requestsAbout(stack: TestStack, ...names: string[]): SandboxRequestRecord[] {
  return stack.model.requests().filter((request) => {
    const user = request.messages.filter((message) => message.role === 'user').map((message) => message.content).join('\n');
    return names.some((name) => user.includes(asInDataBlock(name)));
  });
}

/** A string as the prompt's data block writes it: JSON with markup characters escaped. */
function asInDataBlock(text: string): string {
  return JSON.stringify(text).slice(1, -1).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
}

export async function modelUsageOf(stack: TestStack, researchId: string): Promise<{ calls: number; promptTokens: number; completionTokens: number } | null> {
  const rows = await stack.orm.em.fork().getConnection().execute('select model_usage from research_job where id = ?', [researchId]);
  return rows[0]?.model_usage ?? null;
}

// Words that only English job titles are made of here (the test's own list, not the sandbox's).
const ENGLISH_TITLE_WORDS = new Set(
  ('chief executive officer operating revenue marketing technology financial people product of and head director manager vp ' +
    'vice president sales team lead specialist software development engineer senior account executive coordinator analyst ' +
    'operations associate hr recruiter accountant representative general managing department chairman digital engineering finance consultant')
    .split(' '),
);

/** True when every word of the title is an English title word. */
export function isEnglishTitle(title: string): boolean {
  const words = title.toLowerCase().split(/[\s,/&()-]+/).filter(Boolean);
  return words.length > 0 && words.every((word) => ENGLISH_TITLE_WORDS.has(word));
}
