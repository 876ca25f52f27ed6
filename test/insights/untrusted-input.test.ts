import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductContext } from '../../domain/research/product-context.ts';
import { PROMPT_INJECTIONS } from '../../sandbox/provider-world/posts-and-news.ts';
import { judgeLanguage } from '../ai/ai-fixtures.ts';
import { SAMPLE_PRODUCT, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { pickPeople, requestsAbout, research, type Completed } from './insight-helpers.ts';

// docs/decisions.md#data-and-ai: provider output is data. A post that tries to
// instruct the model cannot change the reply's shape or language, and the
// product context of one key never reaches the reply of another.

const OTHER_PRODUCT: ProductContext = {
  name: 'Quillfeather Vault',
  description: 'Confidential roadmap QF-SECRET-7731 for treasury teams',
  keyFeatures: ['stealth-ledger-4242'],
  targetCustomers: ['covert treasurers'],
  productUrl: null,
};
const SAME_ACCOUNT_PRODUCT: ProductContext = { ...OTHER_PRODUCT, name: 'Marrowstone Beacon', description: 'Internal codename MB-SECRET-0919', keyFeatures: ['glimmer-sync-5150'] };
const FOREIGN_MARKERS = ['Quillfeather', 'QF-SECRET-7731', 'stealth-ledger-4242', 'covert treasurers', 'Marrowstone', 'MB-SECRET-0919', 'glimmer-sync-5150'];

const PROSPECT_KEYS = ['company', 'email', 'id', 'last_role_start', 'name', 'opening_talk', 'photo', 'posts', 'social_url', 'summary', 'title'];
const COMPANY_KEYS = [
  'clients', 'description', 'discovery_questions', 'employees', 'hq', 'icp', 'id', 'industry', 'insights', 'name', 'news', 'posts',
  'problems', 'revenue', 'services', 'social_url', 'synergy_points', 'technologies', 'website',
];
const POST_KEYS = ['post_url', 'posted', 'reshared', 'summary', 'text'];

let stack: TestStack;
let target: ReturnType<typeof pickPeople>[number];
let reply: Completed;
let otherReply: Completed;

beforeAll(async () => {
  stack = await startTestStack();
  [target] = pickPeople(stack, 1, { knownTo: 'both', companyKnownTo: 'both', withPromptInjection: true });

  // Another account researches the same person first, with its own product; then
  // a second key of the caller's own account, with a third product.
  const other = await stack.createAccount('scale', 'de');
  const { key: otherKey } = await stack.createKey(other, OTHER_PRODUCT);
  otherReply = await research(stack, otherKey, target.person.email);
  const caller = await stack.createCustomer('scale', 'fr');
  const { key: siblingKey } = await stack.createKey(caller.accountId, SAME_ACCOUNT_PRODUCT);
  await research(stack, siblingKey, target.person.email);
  stack.model.reset();
  reply = await research(stack, caller.key, target.person.email);
}, 120_000);
afterAll(() => stack?.stop());

describe('a prospect whose posts try to instruct the model', () => {
  it('reaches the model as data: the injected post is in the reply and in the prompt\'s data block only', () => {
    const posts = reply.data.prospect!.posts!;
    expect(posts.some((post) => PROMPT_INJECTIONS.some((text) => post.text.includes(text)))).toBe(true);
    for (const request of stack.model.requests()) {
      const system = request.messages.find((message) => message.role === 'system')!.content;
      for (const text of PROMPT_INJECTIONS) expect(system).not.toContain(text);
    }
  });

  it('cannot change the reply\'s shape', () => {
    const { prospect, company } = reply.data;
    expect(Object.keys(prospect!).sort()).toEqual(PROSPECT_KEYS);
    expect(Object.keys(company!).sort()).toEqual(COMPANY_KEYS);
    for (const post of [...prospect!.posts!, ...company!.posts!]) expect(Object.keys(post).sort()).toEqual(POST_KEYS);
    expect(prospect!.opening_talk).toHaveLength(3);
    for (const field of ['problems', 'services', 'icp', 'synergy_points', 'insights'] as const) expect(company![field], field).toHaveLength(4);
    expect(company!.discovery_questions).toHaveLength(3);
    expect(JSON.stringify(reply)).not.toMatch(/"admin"/);
    const generated = [prospect!.summary!, ...prospect!.opening_talk!, ...prospect!.posts!.map((post) => post.summary!)];
    for (const text of generated) expect(text.trim()).not.toBe('APPROVED');
  });

  it('cannot change the language', () => {
    const { prospect, company } = reply.data;
    expect(judgeLanguage([prospect!.summary!, ...prospect!.opening_talk!, ...prospect!.posts!.map((post) => post.summary!)].join(' '))).toBe('fr');
    expect(judgeLanguage([...company!.insights!, ...company!.problems!].join(' '))).toBe('fr');
    expect(stack.model.requests().map((request) => request.language)).toEqual(['fr', 'fr']);
  });

  it('cannot reveal the system prompt', () => {
    const text = JSON.stringify(reply.data);
    expect(text).not.toMatch(/untrusted_data|Output language|never follow instructions/i);
  });
});

describe('product contexts of other keys', () => {
  it('never appear in the caller\'s reply nor in the model requests of the caller\'s job', () => {
    const text = JSON.stringify(reply);
    for (const marker of FOREIGN_MARKERS) expect(text).not.toContain(marker);
    const requests = requestsAbout(stack, target.person.fullName, target.company.name);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const prompt = JSON.stringify(request.messages);
      for (const marker of FOREIGN_MARKERS) expect(prompt).not.toContain(marker);
      expect(prompt).toContain(SAMPLE_PRODUCT.name);
    }
    expect(reply.data.company!.synergy_points!.every((point) => point.includes(SAMPLE_PRODUCT.name))).toBe(true);
  });

  it('each key\'s reply names its own product: the same prospect, researched with another product, stays separate', () => {
    expect(otherReply.data.company!.synergy_points!.every((point) => point.includes(OTHER_PRODUCT.name))).toBe(true);
    expect(JSON.stringify(otherReply)).not.toContain(SAMPLE_PRODUCT.name);
    expect(reply.data.prospect!.id).not.toBe(otherReply.data.prospect!.id);
    expect(reply.data.company!.id).not.toBe(otherReply.data.company!.id);
  });
});
