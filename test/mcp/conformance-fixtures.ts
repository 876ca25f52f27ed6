import { z } from 'zod';
import { CLIENT_CAPABILITIES_META_KEY, ResourceTemplate, fromJsonSchema, inputRequired, type McpServer } from '@modelcontextprotocol/server';

// The fixtures the official conformance suite calls by name (its reference
// server's tools, resources and prompts, with the same names and contents),
// registered on the real /mcp of a test build only: the test stack passes
// them to the API (ApiDeps.mcpTestFixtures); the production entry point never does.

const IMAGE_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const AUDIO_WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
// Every keyword a 2020-12 input schema may carry, which tools/list must pass on untouched.
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object' as const,
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

export function registerConformanceFixtures(server: McpServer): void {
  server.server.registerCapabilities({ logging: {} });
  registerContentTools(server);
  registerBehaviourTools(server);
  registerResources(server);
  registerPrompts(server);
}

function registerContentTools(server: McpServer): void {
  server.registerTool('test_simple_text', { description: 'Tests simple text content response' }, async () => text('This is a simple text response for testing.'));
  server.registerTool('test_image_content', { description: 'Tests image content response' }, async () => ({
    content: [{ type: 'image', data: IMAGE_PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Tests audio content response' }, async () => ({
    content: [{ type: 'audio', data: AUDIO_WAV, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Tests embedded resource content response' }, async () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Tests response with multiple content types (text, image, resource)' }, async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: IMAGE_PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
    ],
  }));
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
      inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12),
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
}

function registerBehaviourTools(server: McpServer): void {
  server.registerTool('test_tool_with_logging', { description: 'Tests tool that emits log messages during execution' }, async (ctx) => {
    for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: message } });
      await pause();
    }
    return text('Tool with logging executed successfully');
  });
  server.registerTool('test_tool_with_progress', { description: 'Tests tool that reports progress notifications' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken ?? 0;
    for (const progress of [0, 50, 100]) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
      if (progress < 100) await pause();
    }
    return text(String(progressToken));
  });
  server.registerTool('test_error_handling', { description: 'Tests error response handling' }, async () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  // The stateless lifecycle's diagnostics (scenario server-stateless).
  // A tool that needs sampling asks for it; the SDK answers -32021 (HTTP 400) to a client that didn't declare it.
  server.registerTool('test_missing_capability', { description: 'Needs the client\'s sampling capability' }, async (ctx) => {
    const capabilities = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as { sampling?: object } | undefined;
    if (capabilities?.sampling) return text('Success');
    return inputRequired({ inputRequests: { sample: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 10 }) } });
  });
  server.registerTool('test_streaming_elicitation', { description: 'Sends progress on the response stream, then its result' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 50, total: 100 } });
    return text('Streaming complete');
  });
  server.registerTool('test_logging_tool', { description: 'Logs only when the request names a log level' }, async (ctx) => {
    await ctx.mcpReq.log('info', 'Diagnostic trace logging activated');
    return text('Logging evaluated');
  });
}

function registerResources(server: McpServer): void {
  server.registerResource('static-text', 'test://static-text', { title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' }, async () => ({
    contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { title: 'Static Binary Resource', description: 'A static binary resource (image) for testing', mimeType: 'image/png' }, async () => ({
    contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: IMAGE_PNG }],
  }));
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { title: 'Resource Template', description: 'A resource template with parameter substitution', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.toString(), mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
    }),
  );
}

function registerPrompts(server: McpServer): void {
  server.registerPrompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    { title: 'Prompt With Arguments', description: 'A prompt with required arguments', argsSchema: z.object({ arg1: z.string().describe('First test argument'), arg2: z.string().describe('Second test argument') }) },
    async ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { title: 'Prompt With Embedded Resource', description: 'A prompt that includes an embedded resource', argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }) },
    async ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes an image' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: IMAGE_PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}
