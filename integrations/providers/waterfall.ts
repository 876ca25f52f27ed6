import type { Lookup } from '../../domain/enrichment/enrichment.ts';
import { withCallAttributes } from '../../lib/tracing.ts';
import { PROVIDER_UNAVAILABLE, ProviderError, type ProviderLogger } from './http.ts';

/** One provider API tried in a waterfall. */
export interface WaterfallStep<T> {
  api: string;
  source: string;
  run: () => Promise<T | null>;
}

export class ProviderUnavailableError extends Error {
  readonly type = PROVIDER_UNAVAILABLE;
  readonly apisCalled: string[];
  constructor(part: string, apisCalled: string[]) {
    super(`no provider could answer the ${part} lookup (${apisCalled.join(', ') || 'none called'})`);
    // Temporal and the activity layer match failures by name/type, never by class.
    this.name = PROVIDER_UNAVAILABLE;
    this.apisCalled = apisCalled;
  }
}

export interface WaterfallOptions<T> {
  part: string;
  logger: ProviderLogger;
  /** Fills the winner's gaps from a later provider's answer. */
  fillGaps?: (winner: T, other: T) => T;
  /** When the winner has no gaps left, later providers are not called. */
  isComplete?: (value: T) => boolean;
}

/**
 * Tries providers in order; the first match wins and later ones only fill its
 * gaps. Any provider failure skips to the next provider. Without a match, the
 * lookup rejects when any provider could not answer (down, rate-limited, bad
 * key, exhausted plan, refused or unreadable request): that one may be the one
 * that knows, so "not found" would be a guess, and a cached guess lasts a whole
 * TTL. Only documented empty answers make "not found".
 */
export async function runWaterfall<T>(steps: WaterfallStep<T>[], options: WaterfallOptions<T>): Promise<Lookup<T>> {
  const apisCalled: string[] = [];
  let value: T | null = null;
  let source: string | null = null;
  let unavailable = false;
  for (const step of steps) {
    if (value !== null && (!options.fillGaps || options.isComplete?.(value))) break;
    apisCalled.push(step.api);
    try {
      // Every HTTP span of this step says which part of the job it serves.
      const result = await withCallAttributes({ part: options.part }, step.run);
      if (result === null) continue;
      if (value === null) {
        value = result;
        source = step.source;
      } else if (options.fillGaps) {
        value = options.fillGaps(value, result);
      }
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      unavailable = true;
      if (error.kind === 'protocol') {
        // Loud: the provider's reply and our client disagree; someone must look.
        options.logger.error({ provider: step.api.split('.')[0], api: step.api, part: options.part, reason: error.message }, 'provider reply lacks its documented collection: part unavailable this run');
      } else if (error.kind === 'rate_limited' || error.kind === 'unavailable') {
        options.logger.warn({ api: step.api, kind: error.kind, part: options.part }, 'provider unavailable; trying the next one');
      }
      // credentials / quota / rejected were already logged at error level by the HTTP layer.
    }
  }
  if (value === null && unavailable) throw new ProviderUnavailableError(options.part, apisCalled);
  return { value, apisCalled, source };
}

/** Copies the other record's values into the winner's null fields. */
export function fillNullFields<T extends object>(winner: T, other: T): T {
  const merged = { ...winner };
  for (const key of Object.keys(merged) as (keyof T)[]) {
    if (merged[key] === null && other[key] !== null && other[key] !== undefined) merged[key] = other[key];
  }
  return merged;
}

export function hasNoNullFields(value: object): boolean {
  return Object.values(value).every((field) => field !== null);
}
