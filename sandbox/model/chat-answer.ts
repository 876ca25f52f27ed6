import type { Language } from '../../domain/research/languages.ts';
import { LANGUAGE_NAMES, LANGUAGES } from '../../domain/research/languages.ts';
import { createFieldWriter } from './answer-writer.ts';
import type { ChatMessage, ChatRequest } from './chat-request.ts';
import { fillSchema, type WrongSize } from './schema-filler.ts';

/** Marks every answer as the stand-in's, so no client can mistake it for a real model's. */
export const SANDBOX_FINGERPRINT = 'sandbox-model';

/**
 * The language the caller asks for, read only from its own instructions
 * (system/developer messages), never from the data block, so that a post
 * saying "answer in German" changes nothing.
 */
export function requestedLanguage(messages: ChatMessage[]): Language {
  const instructions = messages.filter((message) => message.role === 'system' || message.role === 'developer').map((message) => message.content).join('\n');
  const declared = /Output language:\s*([A-Za-z]+)(?:\s*\((\w\w)\))?/.exec(instructions);
  if (declared) {
    const code = declared[2]?.toLowerCase();
    if (code && (LANGUAGES as readonly string[]).includes(code)) return code as Language;
    const byName = LANGUAGES.find((language) => LANGUAGE_NAMES[language].toLowerCase() === declared[1].toLowerCase());
    if (byName) return byName;
  }
  return LANGUAGES.find((language) => new RegExp(`\\bin ${LANGUAGE_NAMES[language]}\\b`, 'i').test(instructions)) ?? 'en';
}

/** The JSON payload between <untrusted_data> tags of the first user message that has one. */
export function dataBlock(messages: ChatMessage[]): Record<string, unknown> {
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const match = /<untrusted_data>([\s\S]*?)<\/untrusted_data>/.exec(message.content);
    if (!match) continue;
    try {
      const data: unknown = JSON.parse(match[1]);
      if (data !== null && typeof data === 'object') return data as Record<string, unknown>;
    } catch {
      // A block that is not JSON is treated like no block: the answer falls back to generic text.
    }
  }
  return {};
}

export function answerChat(request: ChatRequest, sequence: number, wrongSize: WrongSize) {
  const language = requestedLanguage(request.messages);
  const writer = createFieldWriter(request.schemaName, dataBlock(request.messages), language);
  const content = JSON.stringify(fillSchema(request.schema, writer, wrongSize));
  const promptChars = request.messages.reduce((sum, message) => sum + message.content.length, 0);
  const promptTokens = Math.ceil(promptChars / 4);
  const completionTokens = Math.ceil(content.length / 4);
  return {
    language,
    completion: {
      id: `chatcmpl-sandbox-${sequence}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      system_fingerprint: SANDBOX_FINGERPRINT,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    },
  };
}
