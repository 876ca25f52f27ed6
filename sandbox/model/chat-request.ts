import { SandboxRequestError } from './openai-errors.ts';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  description?: string;
}

export interface ChatMessage {
  role: string;
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  schemaName: string;
  schema: JsonSchema;
  isStrict: boolean;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Checks a chat completions body the way the real endpoint does, with the same error shapes. */
export function parseChatRequest(body: unknown, knownModels: ReadonlySet<string>): ChatRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new SandboxRequestError(400, 'The request body must be a JSON object.');
  }
  const request = body as Record<string, unknown>;
  const model = request.model;
  if (typeof model !== 'string' || model === '') {
    throw new SandboxRequestError(400, 'You must provide a model parameter.', { param: 'model' });
  }
  if (!knownModels.has(model)) {
    throw new SandboxRequestError(404, `The model \`${model}\` does not exist or you do not have access to it.`, { code: 'model_not_found' });
  }
  return { model, messages: parseMessages(request.messages), ...parseResponseFormat(request.response_format) };
}

function parseMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new SandboxRequestError(400, "Invalid 'messages': expected a non-empty array.", { param: 'messages', code: 'invalid_type' });
  }
  return value.map((message: unknown, index) => {
    const param = `messages[${index}]`;
    if (message === null || typeof message !== 'object') throw new SandboxRequestError(400, `Invalid '${param}': expected an object.`, { param });
    const { role, content } = message as Record<string, unknown>;
    if (typeof role !== 'string' || !ROLES.has(role)) {
      throw new SandboxRequestError(400, `Invalid value for '${param}.role': ${JSON.stringify(role)}.`, { param: `${param}.role`, code: 'invalid_value' });
    }
    return { role, content: textOf(content, `${param}.content`) };
  });
}

function textOf(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        const { type, text } = (part ?? {}) as Record<string, unknown>;
        if (type !== 'text' || typeof text !== 'string') throw new SandboxRequestError(400, `Invalid '${param}': only text parts are supported.`, { param });
        return text;
      })
      .join('\n');
  }
  throw new SandboxRequestError(400, `Invalid '${param}': expected a string or an array of text parts.`, { param, code: 'invalid_type' });
}

function parseResponseFormat(value: unknown): { schemaName: string; schema: JsonSchema; isStrict: boolean } {
  const format = (value ?? {}) as Record<string, unknown>;
  if (format.type !== 'json_schema') {
    // The stand-in only speaks structured outputs: the platform never asks for anything else.
    throw new SandboxRequestError(400, "The model sandbox requires response_format {type: 'json_schema'}.", { param: 'response_format' });
  }
  const spec = (format.json_schema ?? {}) as Record<string, unknown>;
  if (typeof spec.name !== 'string' || !SCHEMA_NAME.test(spec.name)) {
    throw new SandboxRequestError(400, "Invalid 'response_format.json_schema.name': must match ^[a-zA-Z0-9_-]{1,64}$.", { param: 'response_format.json_schema.name' });
  }
  const schema = spec.schema as JsonSchema | undefined;
  if (schema === undefined || schema === null || typeof schema !== 'object' || schema.type !== 'object') {
    throw new SandboxRequestError(400, `Invalid schema for response_format '${spec.name}': schema must be a JSON Schema of 'type: "object"'.`, { param: 'response_format' });
  }
  if (spec.strict === true) checkStrict(schema, spec.name, []);
  return { schemaName: spec.name, schema, isStrict: spec.strict === true };
}

/** Strict mode's rules: every object closed and every property required. */
function checkStrict(schema: JsonSchema, name: string, context: string[]): void {
  const fail = (problem: string) => {
    throw new SandboxRequestError(400, `Invalid schema for response_format '${name}': In context=(${context.map((c) => `'${c}'`).join(', ')}), ${problem}`, { param: 'response_format', code: 'invalid_json_schema' });
  };
  if (schema.properties) {
    if (schema.additionalProperties !== false) fail("'additionalProperties' is required to be supplied and to be false.");
    const required = new Set(schema.required ?? []);
    for (const [key, child] of Object.entries(schema.properties)) {
      if (!required.has(key)) fail(`'required' is required to be supplied and to be an array including every key in properties. Missing '${key}'.`);
      checkStrict(child, name, [...context, 'properties', key]);
    }
  }
  if (schema.items) checkStrict(schema.items, name, [...context, 'items']);
  schema.anyOf?.forEach((option, index) => checkStrict(option, name, [...context, 'anyOf', String(index)]));
}
