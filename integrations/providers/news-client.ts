import { z } from 'zod';
import type { NewsArticle } from '../../domain/enrichment/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps, type ProviderFailureKind } from './http.ts';
import { parseReply, requiredList, text } from './reply-parsing.ts';

// NewsAPI.org Everything endpoint, searched for the company name as an exact phrase:
//   GET /v2/everything?q=&from=&sortBy=publishedAt   https://newsapi.org/docs/endpoints/everything
//   auth `X-Api-Key` header (or `apiKey` parameter)  https://newsapi.org/docs/authentication
//   errors {status: 'error', code, message}          https://newsapi.org/docs/errors
// Plans differ in how far back `from` may reach (Developer: one month); an older
// `from` is refused with `parameterInvalid` ("too far in the past").

export const NEWS_APIS = { everything: 'news.everything' } as const;

const ZEverything = z.object({
  status: z.literal('ok'),
  articles: requiredList(z.object({ title: text, description: text, content: text, url: text, publishedAt: text })),
});

// NewsAPI names its failures in `code`; key problems are not all 401s.
function classify(_status: number, body: unknown): ProviderFailureKind | undefined {
  const code = (body as { code?: unknown } | null)?.code;
  if (code === 'apiKeyExhausted') return 'quota';
  if (code === 'apiKeyInvalid' || code === 'apiKeyMissing' || code === 'apiKeyDisabled') return 'credentials';
  if (code === 'rateLimited') return 'rate_limited';
  if (code === 'parameterInvalid' || code === 'parametersMissing') return 'rejected';
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
      // NewsAPI documents no 404: such a reply fails the shape check below as a protocol error.
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
