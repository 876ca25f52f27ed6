import type { CompanyQuery } from './enrichment.ts';

/**
 * The key company rows are cached under: the company's domain, else its page
 * URL, else its name (docs/decisions.md#data-and-ai: colleagues within (account, product) share
 * one row).
 */
export function companyKeyOf(query: CompanyQuery): string | null {
  if (query.domain) return query.domain.toLowerCase();
  if (query.socialUrl) return `url:${query.socialUrl.toLowerCase().replace(/\/+$/, '')}`;
  if (query.name) return `name:${query.name.trim().toLowerCase()}`;
  return null;
}
