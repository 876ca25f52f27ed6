// Stripe's request encoding: `application/x-www-form-urlencoded` with bracketed
// keys (`items[0][price]=…`, `expand[]=schedule`), as the SDKs send it
// (docs.stripe.com/api/requests). Every value arrives as text.

import qs from 'qs';
import { invalidEnum, invalidParam, missingParam, StripeApiError } from './errors.ts';

export type Params = Record<string, unknown>;

export function parseForm(text: string): Params {
  return qs.parse(text, { depth: 8, arrayLimit: 100, parameterLimit: 1000, allowDots: false }) as Params;
}

export function optionalString(params: Params, key: string, path = key): string | null {
  const value = params[key];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw invalidParam(path, `Invalid string: ${path} must be a string.`);
  return value;
}

export function requiredString(params: Params, key: string, path = key): string {
  const value = optionalString(params, key, path);
  if (value === null) throw missingParam(path);
  return value;
}

export function optionalEnum<const T extends readonly string[]>(params: Params, key: string, allowed: T, path = key): T[number] | null {
  const value = optionalString(params, key, path);
  if (value === null) return null;
  if (!allowed.includes(value)) throw invalidEnum(path, value, allowed);
  return value as T[number];
}

export function optionalBoolean(params: Params, key: string, path = key): boolean | null {
  const value = optionalString(params, key, path);
  if (value === null) return null;
  if (value !== 'true' && value !== 'false') throw invalidParam(path, `Invalid boolean: ${value}`);
  return value === 'true';
}

export function optionalTimestamp(params: Params, key: string, path = key): number | null {
  const value = optionalString(params, key, path);
  if (value === null) return null;
  if (value === 'now') return null;
  if (!/^\d+$/.test(value)) throw invalidParam(path, `Invalid timestamp: must be an integer Unix timestamp in the past or future.`);
  return Number(value);
}

export function optionalInteger(params: Params, key: string, path = key): number | null {
  const value = optionalString(params, key, path);
  if (value === null) return null;
  if (!/^\d+$/.test(value)) throw invalidParam(path, `Invalid integer: ${value}`);
  return Number(value);
}

/** A hash parameter (`metadata[key]=value`). */
export function optionalHash(params: Params, key: string, path = key): Record<string, string> {
  const value = params[key];
  if (value === undefined || value === '') return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidParam(path, `Invalid hash: ${path}`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

/** An array parameter (`items[0][price]=…` or `expand[]=…`), each element a hash or a string. */
export function optionalArray(params: Params, key: string): unknown[] {
  const value = params[key];
  if (value === undefined || value === '') return [];
  if (Array.isArray(value)) return value;
  // qs turns `items[5][price]` with gaps into an object keyed by index.
  if (typeof value === 'object' && value !== null) return Object.keys(value).sort((a, b) => Number(a) - Number(b)).map((k) => (value as Record<string, unknown>)[k]);
  return [value];
}

export function hashAt(value: unknown, path: string): Params {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidParam(path, `Invalid object: ${path}`);
  return value as Params;
}

export function expandOf(params: Params): string[] {
  return optionalArray(params, 'expand').filter((value): value is string => typeof value === 'string');
}

/**
 * Stripe refuses a parameter an endpoint does not have (`parameter_unknown`).
 * The stand-in knows the parameters its endpoints model; `expand` is accepted everywhere.
 */
export function allowOnly(params: Params, known: readonly string[]): void {
  for (const key of Object.keys(params)) {
    if (key !== 'expand' && !known.includes(key)) {
      throw new StripeApiError(400, 'invalid_request_error', `Received unknown parameter: ${key}`, { code: 'parameter_unknown', param: key });
    }
  }
}
