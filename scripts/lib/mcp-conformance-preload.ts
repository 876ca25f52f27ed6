// Loaded into the conformance suite's process (`node --import`), before the suite.
//
// The suite has no option for request headers: its server scenarios reach the
// server under test with the SDK client (global fetch) and undici's `request`,
// both through undici's global dispatcher, and a few with node:http. Both
// paths here add the API key to every request for the server under test
// (unless the scenario sent its own Authorization) and refuse any request that
// would leave this machine, so a run can't depend on the network.
import http, { type ClientRequest, type RequestOptions } from 'node:http';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const target = new URL(required('CONFORMANCE_TARGET_URL'));
const authorization = required('CONFORMANCE_AUTHORIZATION');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

// The undici the suite itself imports, so that its `request` and this dispatcher agree.
const suiteRequire = createRequire(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'));
const { Agent, setGlobalDispatcher } = suiteRequire('undici') as typeof Undici;

setGlobalDispatcher(
  new Agent().compose((dispatch) => (options, handler) => {
    const origin = new URL(String(options.origin));
    if (!LOOPBACK.has(origin.hostname)) throw new Error(`The conformance run is offline: refused a request to ${origin.origin}`);
    if (origin.origin !== target.origin) return dispatch(options, handler);
    const headers = flatHeaders(options.headers);
    const hasAuthorization = headers.some((value, index) => index % 2 === 0 && value.toLowerCase() === 'authorization');
    return dispatch({ ...options, headers: hasAuthorization ? headers : [...headers, 'authorization', authorization] }, handler);
  }),
);

// node:http, as the suite calls it: http.request(options[, callback]) or http.request(url, options[, callback]).
const httpRequest = http.request;
http.request = ((...args: unknown[]) => {
  const [first, second] = args;
  const hasUrl = typeof first === 'string' || first instanceof URL;
  const options = ((hasUrl ? (typeof second === 'object' ? second : undefined) : first) ?? {}) as RequestOptions;
  const url = hasUrl ? new URL(String(first)) : new URL(`http://${options.hostname ?? options.host ?? 'localhost'}${options.port ? `:${options.port}` : ''}`);
  if (!LOOPBACK.has(url.hostname)) throw new Error(`The conformance run is offline: refused a request to ${url.origin}`);
  const headers = { ...(options.headers as Record<string, unknown> | undefined) };
  if (url.origin === target.origin && !Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) headers.authorization = authorization;
  const rest = args.slice(hasUrl ? (typeof second === 'object' ? 2 : 1) : 1);
  return (httpRequest as (...all: unknown[]) => ClientRequest)(...(hasUrl ? [first, { ...options, headers }] : [{ ...options, headers }]), ...rest);
}) as typeof http.request;

/** undici takes headers as a record, a flat [name, value, …] array or an iterable of pairs; one flat array out. */
function flatHeaders(headers: Undici.Dispatcher.DispatchOptions['headers']): string[] {
  if (!headers) return [];
  if (Array.isArray(headers)) return headers.map(String);
  const pairs: Iterable<[string, unknown]> = Symbol.iterator in headers ? (headers as Iterable<[string, unknown]>) : Object.entries(headers);
  const flat: string[] = [];
  for (const [name, value] of pairs) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) flat.push(name, String(one));
  }
  return flat;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the conformance run is started by scripts/lib/mcp-conformance.ts`);
  return value;
}
