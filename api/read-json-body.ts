import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../domain/errors.ts';
import { findDuplicateKey } from './json-duplicate-keys.ts';

export const MAX_BODY_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON request body of at most 64 KiB. Returns `undefined` when the body
 * is declared as another type (a form, text), or is empty, not UTF-8 or not
 * JSON; the caller decides which error that is (for `POST /research`,
 * `missing_email`: docs/decisions.md#error-bodies, there is no 415). A key given twice in
 * one object is 400 `invalid_request` naming it (`field`), whatever the caller
 * would make of it.
 */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  const contentType = ctx.get('content-type');
  if (contentType && !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType)) return undefined;
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('content-length') || undefined });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      // The rest of the body is never read: close the connection rather than
      // let the server drain (up to) the declared length before the next request.
      ctx.set('Connection', 'close');
      throw new AppError('payload_too_large', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`);
    }
    throw new AppError('invalid_request', 'The request body could not be read.');
  }
  let text: string;
  let body: unknown;
  try {
    text = utf8.decode(raw);
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== null) throw new AppError('invalid_request', `The key "${duplicate}" appears twice in the JSON body.`, { field: duplicate });
  return body;
}
