import { z } from 'zod';
import { getDomain } from 'tldts';
import { ProviderError } from './http.ts';

// Provider replies are untrusted: a field of the wrong type becomes null, a
// malformed list item is dropped, unknown fields are ignored. Only a reply
// whose overall shape is wrong counts as a failure.

export const text = z.string().trim().min(1).nullish().catch(null).transform((v) => v ?? null);
export const num = z.number().finite().nullish().catch(null).transform((v) => v ?? null);
export const bool = z.boolean().nullish().catch(null).transform((v) => v ?? null);

export function tolerantList<T extends z.ZodType>(item: T) {
  return z.array(z.unknown()).nullish().catch(null).transform((items) =>
    (items ?? []).flatMap((value) => {
      const parsed = item.safeParse(value);
      return parsed.success ? [parsed.data as z.output<T>] : [];
    }),
  );
}

/**
 * The collection a reply must carry (`posts`, `data`, `articles`): present and a
 * list, or the whole reply is a protocol error. Its items stay tolerant.
 */
export function requiredList<T extends z.ZodType>(item: T) {
  return z.array(z.unknown()).transform((items) =>
    items.flatMap((value) => {
      const parsed = item.safeParse(value);
      return parsed.success ? [parsed.data as z.output<T>] : [];
    }),
  );
}

/**
 * A 2xx reply without the documented shape is a `protocol` failure: the part is
 * unavailable this run and nothing is cached; it is never read as "no data".
 */
export function parseReply<T extends z.ZodType>(schema: T, body: unknown, api: string): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => issue.path.join('.') || '(reply)').slice(0, 3).join(', ');
    throw new ProviderError('protocol', api, 200, `reply did not have the documented shape (${where})`);
  }
  return parsed.data;
}

/** `linkedin.com/in/x`, `http://www.linkedin.com/in/x/` → `https://www.linkedin.com/in/x`. */
export function canonicalProfileUrl(url: string | null): string | null {
  if (!url) return null;
  const bare = url.trim().replace(/^https?:\/\//i, '').replace(/^www\./i, '').replace(/\/+$/, '');
  return /^linkedin\.com\//i.test(bare) ? `https://www.${bare}` : `https://${bare}`;
}

/** Websites arrive as `acme.io`, `www.acme.io` or full URLs. */
export function websiteUrl(website: string | null): string | null {
  if (!website) return null;
  return /^https?:\/\//i.test(website) ? website : `https://${website.replace(/^\/+/, '')}`;
}

/** Registrable domain of a website; null for IP addresses and unknown suffixes. */
export function domainOf(website: string | null): string | null {
  if (!website) return null;
  return getDomain(websiteUrl(website) ?? '', { allowPrivateDomains: false }) ?? null;
}

/** `2021-03` → `2021-03-01`: PDL often knows only the month a role began. */
export function fullDate(value: string | null): string | null {
  if (!value) return null;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) return value.slice(0, 10);
  if (/^\d{4}-\d{2}$/.test(value)) return `${value}-01`;
  if (/^\d{4}$/.test(value)) return `${value}-01-01`;
  return null;
}
