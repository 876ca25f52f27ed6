// Chat messages paced per webhook URL (services/crm/chat-pacing.ts): about one a
// second per webhook (Slack's documented pace), in the order the turns were
// taken, shared by every process through PostgreSQL, and held off after a
// 429's Retry-After. Two ORMs with their own connection pools stand for two
// CRM worker processes; the chat stand-in records when each message arrived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../db/orm.ts';
import { startChatSandbox, type ChatSandbox } from '../../sandbox/chat/server.ts';
import { CHAT_MESSAGE_INTERVAL_MS, postPacedChatMessage } from '../../services/crm/chat-pacing.ts';
import type { OutboundPolicy } from '../../integrations/web/outbound-guard.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/scratch-database.ts';

let database: ScratchDatabase;
let processes: [Orm, Orm];
let chat: ChatSandbox;

beforeAll(async () => {
  database = await createScratchDatabase('chat_pacing', { processes: 2 });
  processes = [database.orms[0]!, database.orms[1]!];
  chat = await startChatSandbox();
});
afterAll(async () => {
  await chat?.close();
  await database?.drop();
});

const message = (text: string) => ({ text, blocks: [] });
// The stand-in listens on loopback, which only the development allow-list lets a post reach.
const policy: OutboundPolicy = { allowedPrivateHosts: new Set(['127.0.0.1']) };
const gapsOf = (hook: string) => {
  const times = chat.messages(hook).map((each) => Date.parse(each.at));
  return times.slice(1).map((at, index) => at - times[index]!);
};
// The stand-in stamps arrival: a turn starts a POST, which lands some ms later (more on a busy machine).
const MIN_GAP_MS = 900;

describe('chat messages to one webhook', () => {
  it('from two processes at once arrive about one a second, each process\'s in its order; another webhook is not held up', async () => {
    const hook = '/services/T1/B1/paced';
    const url = `${chat.url}${hook}`;
    const options = { policy };
    const startedAt = Date.now();
    const sendAll = (orm: Orm, name: string) => (async () => {
      for (let index = 0; index < 4; index++) expect((await postPacedChatMessage(() => orm.em.fork(), url, message(`${name} ${index}`), options)).outcome).toBe('posted');
    })();
    const other = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const at = Date.now();
      await postPacedChatMessage(() => processes[0].em.fork(), `${chat.url}/services/T1/B1/elsewhere`, message('elsewhere'), options);
      return Date.now() - at;
    })();
    const [, , otherMs] = await Promise.all([sendAll(processes[0], 'a'), sendAll(processes[1], 'b'), other]);

    const texts = chat.messages(hook).map((each) => each.text);
    expect(texts).toHaveLength(8);
    expect(texts.filter((text) => text.startsWith('a'))).toEqual(['a 0', 'a 1', 'a 2', 'a 3']);
    expect(texts.filter((text) => text.startsWith('b'))).toEqual(['b 0', 'b 1', 'b 2', 'b 3']);
    for (const gap of gapsOf(hook)) expect(gap).toBeGreaterThanOrEqual(MIN_GAP_MS);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(7 * CHAT_MESSAGE_INTERVAL_MS - 100);
    expect(otherMs).toBeLessThan(500);
  }, 30_000);

  it('after a 429 waits out its Retry-After before any process posts again', async () => {
    const hook = '/services/T1/B1/limited';
    const url = `${chat.url}${hook}`;
    // Slack's answer to a burst: 429 with Retry-After (seconds), once.
    const told = await fetch(`${chat.url}/__admin/hooks`, { method: 'POST', body: JSON.stringify({ hook, error: 'rate_limited', times: 1, retryAfterSeconds: 2 }) });
    expect(told.status).toBe(200);
    const at = Date.now();
    const first = postPacedChatMessage(() => processes[0].em.fork(), url, message('retried'), { policy });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = postPacedChatMessage(() => processes[1].em.fork(), url, message('after'), { policy });
    expect((await Promise.all([first, second])).map((each) => each.outcome)).toEqual(['posted', 'posted']);
    const arrived = chat.messages(hook);
    expect(arrived.map((each) => each.text).sort()).toEqual(['after', 'retried']);
    // Nothing reached the webhook until the 2 s it asked for had passed.
    expect(Math.min(...arrived.map((each) => Date.parse(each.at))) - at).toBeGreaterThanOrEqual(1_900);
    for (const gap of gapsOf(hook)) expect(gap).toBeGreaterThanOrEqual(MIN_GAP_MS);
  }, 30_000);
});
