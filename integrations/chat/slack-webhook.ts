// Posting to a Slack-format incoming webhook (api.slack.com/messaging/webhooks):
// JSON `text` + `blocks`, success is 200 with the body `ok`. 403, 404 and 410
// are final (the hook was removed, the channel archived, posting forbidden:
// api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks),
// so the caller disables the webhook and tells the owner. 429 and 5xx may be
// tried again later. The address was checked when it was saved; it is
// checked again here (a name may resolve elsewhere since).
import { lookup } from 'node:dns/promises';
import type { ChatMessage } from '../../domain/crm/messages.ts';
import { isPrivateAddress } from '../web/private-address.ts';

export type ChatPostResult =
  | { outcome: 'posted' }
  | { outcome: 'gone'; status: number; answer: string }
  | { outcome: 'retry'; status: number | null; answer: string; retryAfterMs: number | null }
  | { outcome: 'refused'; status: number; answer: string };

const TIMEOUT_MS = 10_000;

export async function postChatMessage(url: string, message: ChatMessage, options: { chatSandboxUrl: string | null; fetch?: typeof fetch } = { chatSandboxUrl: null }): Promise<ChatPostResult> {
  const isSandbox = options.chatSandboxUrl !== null && url.startsWith(`${options.chatSandboxUrl}/`);
  if (!isSandbox) {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const addresses = await lookup(host, { all: true }).then((entries) => entries.map((entry) => entry.address)).catch(() => [] as string[]);
    if (addresses.length === 0) return { outcome: 'retry', status: null, answer: `${host} cannot be resolved`, retryAfterMs: null };
    if (addresses.some(isPrivateAddress)) return { outcome: 'refused', status: 0, answer: 'the webhook host resolves to a private address' };
  }
  let reply: Response;
  try {
    reply = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    return { outcome: 'retry', status: null, answer: error instanceof Error ? error.message : String(error), retryAfterMs: null };
  }
  const answer = (await reply.text().catch(() => '')).slice(0, 200);
  if (reply.status === 200) return { outcome: 'posted' };
  if (reply.status === 403 || reply.status === 404 || reply.status === 410) return { outcome: 'gone', status: reply.status, answer: answer || String(reply.status) };
  if (reply.status === 429 || reply.status >= 500) {
    const retryAfter = Number(reply.headers.get('retry-after'));
    return { outcome: 'retry', status: reply.status, answer, retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null };
  }
  return { outcome: 'refused', status: reply.status, answer };
}
