// Chat messages paced per webhook URL (docs/crm.md#chat-messages): Slack takes
// about one message a second per incoming webhook, with short bursts, and
// answers 429 with Retry-After beyond. Every process that posts (CRM workers
// on several machines, several runs sharing one channel) takes its turn from
// one row per webhook in PostgreSQL: a single statement hands out the next
// moment, by the database's clock, so the turns are in the order they were
// taken and never closer than the interval, whichever process takes them.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChatMessage } from '../../domain/crm/messages.ts';
import { postChatMessage, type ChatPostResult } from '../../integrations/chat/slack-webhook.ts';
import type { OutboundPolicy } from '../../integrations/web/outbound-guard.ts';

/**
 * Slack's documented pace for posting messages is one a second per webhook;
 * turns are a little further apart, so that a post that travels faster than
 * the one before it still arrives a second after it.
 */
export const CHAT_MESSAGE_INTERVAL_MS = 1_100;
/** Tries of one message: its first, and two more after a 429 or 5xx (each in a turn of its own). */
const CHAT_ATTEMPTS = 3;

const urlKey = (url: string) => createHash('sha256').update(url).digest('hex');
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Takes the webhook's next turn; how long to wait for it, in ms. */
export async function takeChatTurn(em: EntityManager, url: string, intervalMs = CHAT_MESSAGE_INTERVAL_MS): Promise<number> {
  const [row]: Array<{ wait_ms: string }> = await em.execute(
    `insert into chat_webhook_pace as pace (url_hash, next_at) values (?, clock_timestamp() + make_interval(secs => ? / 1000.0))
     on conflict (url_hash) do update set next_at = greatest(pace.next_at, clock_timestamp()) + make_interval(secs => ? / 1000.0)
     returning greatest(0, extract(epoch from (pace.next_at - clock_timestamp())) * 1000 - ?) as wait_ms`,
    [urlKey(url), intervalMs, intervalMs, intervalMs],
  );
  return Math.ceil(Number(row!.wait_ms));
}

/** After a 429's Retry-After: no process posts to the webhook before it has passed. */
export async function holdOffChat(em: EntityManager, url: string, waitMs: number): Promise<void> {
  await em.execute(
    `insert into chat_webhook_pace as pace (url_hash, next_at) values (?, clock_timestamp() + make_interval(secs => ? / 1000.0))
     on conflict (url_hash) do update set next_at = greatest(pace.next_at, excluded.next_at)`,
    [urlKey(url), waitMs],
  );
}

/**
 * Posts a message in the webhook's next turn; a 429 or 5xx is tried again in
 * a later turn, after the Retry-After if one came. `onWait` is called while
 * waiting (an activity heartbeats there).
 */
export async function postPacedChatMessage(
  em: () => EntityManager,
  url: string,
  message: ChatMessage,
  options: { policy: OutboundPolicy; intervalMs?: number },
): Promise<ChatPostResult> {
  let result: ChatPostResult = { outcome: 'retry', status: null, answer: 'not posted', retryAfterMs: null };
  for (let attempt = 1; attempt <= CHAT_ATTEMPTS; attempt++) {
    await sleep(await takeChatTurn(em(), url, options.intervalMs));
    result = await postChatMessage(url, message, options.policy);
    if (result.outcome !== 'retry') return result;
    await holdOffChat(em(), url, Math.min(result.retryAfterMs ?? 1_000 * attempt, 30_000));
  }
  return result;
}
