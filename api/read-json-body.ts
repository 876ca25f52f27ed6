import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../domain/errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON request body of at most 64 KiB. Returns `undefined` when the body
 * is empty or not JSON; the caller decides which error that is (for
 * `POST /research`, `missing_email`).
 */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  const contentType = ctx.get('content-type');
  if (contentType && !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType)) {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('content-length') || undefined });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw new AppError('payload_too_large', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`);
    throw new AppError('invalid_request', 'The request body could not be read.');
  }
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    return undefined;
  }
}
