// Posting to a Slack-format incoming webhook (api.slack.com/messaging/webhooks):
// JSON `text` + `blocks`, success is 200 with the body `ok`. 403, 404 and 410
// are final (the hook was removed, the channel archived, posting forbidden:
// api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks),
// so the caller disables the webhook and tells the owner. 429 and 5xx may be
// tried again later. The address was checked when it was saved; every post
// goes through the outbound guard again (a name may resolve elsewhere since).
import type { ChatMessage } from '../../domain/crm/messages.ts';
import { guardedRequest, OutboundRefused, type OutboundPolicy } from '../web/outbound-guard.ts';

export type ChatPostResult =
  | { outcome: 'posted' }
  | { outcome: 'gone'; status: number; answer: string }
  | { outcome: 'retry'; status: number | null; answer: string; retryAfterMs: number | null }
  | { outcome: 'refused'; status: number; answer: string };

const TIMEOUT_MS = 10_000;
const ANSWER_CHARS = 200;

export async function postChatMessage(url: string, message: ChatMessage, policy: OutboundPolicy): Promise<ChatPostResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { outcome: 'refused', status: 0, answer: 'not a URL' };
  }
  let status: number;
  let answer: string;
  let retryAfterHeader: string | undefined;
  try {
    const body = JSON.stringify(message);
    // No redirect is followed: a 3xx is an answer like any other.
    const response = await guardedRequest(parsed, url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }, policy);
    status = response.statusCode ?? 0;
    retryAfterHeader = response.headers['retry-after'];
    answer = await readStart(response);
  } catch (error) {
    if (error instanceof OutboundRefused) return { outcome: 'refused', status: 0, answer: error.message };
    return { outcome: 'retry', status: null, answer: error instanceof Error ? error.message : String(error), retryAfterMs: null };
  }
  if (status === 200) return { outcome: 'posted' };
  if (status === 403 || status === 404 || status === 410) return { outcome: 'gone', status, answer: answer || String(status) };
  if (status === 429 || status >= 500) {
    const retryAfter = Number(retryAfterHeader);
    return { outcome: 'retry', status, answer, retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null };
  }
  return { outcome: 'refused', status, answer };
}

/** The first characters of the answer (Slack's error names are short); the rest is drained unread. */
async function readStart(response: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  let text = '';
  try {
    for await (const chunk of response) {
      text += chunk.toString('utf8');
      if (text.length >= ANSWER_CHARS) {
        response.destroy();
        break;
      }
    }
  } catch {
    // A body cut short still leaves the status, which is what decides.
  }
  return text.slice(0, ANSWER_CHARS);
}
