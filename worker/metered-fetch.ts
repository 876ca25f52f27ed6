import type { ProviderConfig, ProviderId } from '../integrations/providers/config.ts';
import { outsideCallMetrics } from '../lib/metrics.ts';
import { withCallAttributes } from '../lib/tracing.ts';

type Fetch = typeof fetch;
type Outcome = 'ok' | 'not_found' | 'rate_limited' | 'client_error' | 'server_error' | 'timeout' | 'network_error';

const PROVIDERS: ProviderId[] = ['pdl', 'apollo', 'social', 'news'];

function outcomeOf(status: number): Outcome {
  if (status < 400) return 'ok';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  return status < 500 ? 'client_error' : 'server_error';
}

const failureOutcome = (error: unknown): Outcome =>
  error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? 'timeout' : 'network_error';

const urlOf = (input: Parameters<Fetch>[0]) => new URL(input instanceof Request ? input.url : String(input));

/**
 * A path as a label: segments that look like ids (digits, long tokens, e-mail
 * addresses) become `:id`, so one endpoint is one series whatever it is asked.
 */
export function endpointLabel(path: string): string {
  const segments = path.split('/').filter(Boolean).map((segment) => (/\d|@|%|^[\w-]{24,}$/.test(segment) && !/^v\d+$/.test(segment) ? ':id' : segment));
  return `/${segments.join('/')}`;
}

/**
 * The provider clients' fetch, counting every attempt by provider, endpoint
 * (the path below the provider's base URL) and outcome, with its latency.
 * Anything else fetched (a company's website for technology detection) counts
 * as provider `website`, endpoint `/`: its paths are not ours to label.
 */
export function meterProviderFetch(config: ProviderConfig, inner: Fetch = globalThis.fetch): Fetch {
  const bases = PROVIDERS.flatMap((id) => (config[id] ? [{ id, base: new URL(config[id].baseUrl) }] : []));
  const labelsOf = (url: URL) => {
    const match = bases.find(({ base }) => url.origin === base.origin && url.pathname.startsWith(base.pathname.replace(/\/$/, '')));
    if (!match) return { provider: 'website', endpoint: '/' };
    return { provider: match.id, endpoint: endpointLabel(url.pathname.slice(match.base.pathname.replace(/\/$/, '').length)) };
  };
  return async (input, init) => {
    const labels = labelsOf(urlOf(input));
    const started = performance.now();
    const observe = (outcome: Outcome) => {
      outsideCallMetrics.providerCalls.inc({ ...labels, outcome });
      outsideCallMetrics.providerDuration.observe({ ...labels, outcome }, (performance.now() - started) / 1000);
    };
    try {
      const response = await inner(input, init);
      observe(outcomeOf(response.status));
      return response;
    } catch (error) {
      observe(failureOutcome(error));
      throw error;
    }
  };
}

/**
 * The AI client's fetch: every chat completion counted by model and outcome,
 * with its latency and the tokens the reply reports (`usage`), read from a
 * copy of the reply so the SDK still reads the original.
 */
export function meterModelFetch(inner: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const started = performance.now();
    const requestedModel = modelOf(init?.body);
    const observe = (outcome: Outcome, model: string) => {
      outsideCallMetrics.modelCalls.inc({ model, outcome });
      outsideCallMetrics.modelDuration.observe({ model, outcome }, (performance.now() - started) / 1000);
    };
    let response: Response;
    try {
      response = await withCallAttributes({ provider: 'ai', part: 'insights', 'gen_ai.request.model': requestedModel }, () => inner(input, init));
    } catch (error) {
      observe(failureOutcome(error), requestedModel);
      throw error;
    }
    observe(outcomeOf(response.status), requestedModel);
    if (response.ok) void countTokens(response.clone(), requestedModel);
    return response;
  };
}

function modelOf(body: unknown): string {
  if (typeof body !== 'string') return 'unknown';
  try {
    const model = (JSON.parse(body) as { model?: unknown }).model;
    return typeof model === 'string' ? model : 'unknown';
  } catch {
    return 'unknown';
  }
}

async function countTokens(copy: Response, model: string): Promise<void> {
  try {
    const { usage } = (await copy.json()) as { usage?: { prompt_tokens?: number; completion_tokens?: number } };
    if (usage?.prompt_tokens) outsideCallMetrics.modelTokens.inc({ model, kind: 'prompt' }, usage.prompt_tokens);
    if (usage?.completion_tokens) outsideCallMetrics.modelTokens.inc({ model, kind: 'completion' }, usage.completion_tokens);
  } catch {
    // Not JSON (an error page): no tokens to count.
  }
}
