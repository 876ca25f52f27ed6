import type { CallToolResult } from '@modelcontextprotocol/server';
import { AppError } from '../../domain/errors.ts';
import type { Logger } from '../../lib/logger.ts';

/** `research://{research_id}`: the full status reply, linked from results instead of repeated in them. */
export const researchUri = (researchId: string) => `research://${researchId}`;

/**
 * A tool's reply: `structuredContent` (validated by the SDK against the tool's
 * outputSchema), the same JSON as text for clients that read only text, a
 * sentence telling the agent what to do next, and links to full replies.
 */
export function toolResult(structured: Record<string, unknown>, options: { next?: string; links?: Array<{ uri: string; name: string }>; json?: string } = {}): CallToolResult {
  return {
    content: [
      { type: 'text', text: options.json ?? JSON.stringify(structured) },
      ...(options.next ? [{ type: 'text' as const, text: options.next }] : []),
      ...(options.links ?? []).map((link) => ({ type: 'resource_link' as const, uri: link.uri, name: link.name, mimeType: 'application/json' })),
    ],
    structuredContent: structured,
  };
}

/**
 * A tool error (`isError`), never a protocol error: the agent reads it and can
 * fix its call. The body is the HTTP API's error body (`error`, `message`, and
 * `field` where one input is wrong), so codes mean the same on both.
 */
export function toolError(code: string, message: string, details: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: code, message, ...details }) }] };
}

/**
 * Runs a tool's body: an AppError (the services' refusals: not found, out of
 * credits, …) becomes a tool error with the API's code and message (out of
 * credits says where to get more); anything else is logged and answered as
 * the API's bare internal_error, so no stack trace or SQL reaches an agent.
 */
export async function asToolErrors(logger: Logger, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) return toolError(error.code, error.message, error.details);
    logger.error({ err: error }, 'MCP tool failed');
    return toolError('internal_error', 'Something went wrong on our side; retry with backoff.');
  }
}
