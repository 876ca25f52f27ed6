import { z } from 'zod';
import type { NewsArticle } from '../../domain/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps, type ProviderFailureKind } from './http.ts';
import { parseReply, text, tolerantList } from './reply-parsing.ts';

// NewsAPI.org `/v2/everything`, searched for the company name as an exact phrase.

export const NEWS_APIS = { everything: 'news.everything' } as const;

const ZEverything = z.object({
  status: z.literal('ok'),
  articles: tolerantList(z.object({ title: text, description: text, content: text, url: text, publishedAt: text })),
});

// NewsAPI names its failures in `code`; key problems are not all 401s.
function classify(_status: number, body: unknown): ProviderFailureKind | undefined {
  const code = (body as { code?: unknown } | null)?.code;
  if (code === 'apiKeyExhausted') return 'quota';
  if (code === 'apiKeyInvalid' || code === 'apiKeyMissing' || code === 'apiKeyDisabled') return 'credentials';
  if (code === 'rateLimited') return 'rate_limited';
  return undefined;
}

export interface NewsClient {
  /** Articles published since `from`, newest first. */
  search(companyName: string, from: Date): Promise<NewsArticle[]>;
}

export function createNewsClient(endpoint: ProviderEndpoint, http: HttpDeps): NewsClient {
  return {
    async search(companyName, from) {
      const url = new URL(`${endpoint.baseUrl}/v2/everything`);
      url.searchParams.set('q', `"${companyName.replace(/"/g, '')}"`);
      url.searchParams.set('from', from.toISOString().slice(0, 19));
      url.searchParams.set('sortBy', 'publishedAt');
      url.searchParams.set('pageSize', '20');
      const reply = await requestJson(http, { api: NEWS_APIS.everything, url: url.href, headers: { 'X-Api-Key': endpoint.apiKey }, classify });
      if (reply.status === 404) return [];
      const { articles } = parseReply(ZEverything, reply.body, NEWS_APIS.everything);
      return articles.flatMap((a): NewsArticle[] => {
        const published = a.publishedAt ? Date.parse(a.publishedAt) : Number.NaN;
        const body = a.description ?? a.content;
        if (!a.title || !a.url || !body || Number.isNaN(published)) return [];
        return [{ title: a.title, text: body, url: a.url, publishedOn: new Date(published).toISOString().slice(0, 10) }];
      }).sort((x, y) => y.publishedOn.localeCompare(x.publishedOn));
    },
  };
}
