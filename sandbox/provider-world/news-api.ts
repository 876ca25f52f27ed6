import { companyNews } from './posts-and-news.ts';
import { header, type ProviderApi, type Reply } from './provider-api.ts';

// NewsAPI.org v2, written from its documentation (not from our client):
//   GET /v2/everything  → {status: 'ok', totalResults, articles: [{source: {id, name}, author,
//       title, description, url, urlToImage, publishedAt, content}]}
//       https://newsapi.org/docs/endpoints/everything
//   key in the `X-Api-Key` header or `apiKey` parameter  https://newsapi.org/docs/authentication
//   errors {status: 'error', code, message}               https://newsapi.org/docs/errors
// A `from` older than the plan's history is refused: 426, `parameterInvalid`,
// "You are trying to request results too far in the past…".

function error(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return { status, body: { status: 'error', code, message }, headers };
}

const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const newsApi: ProviderApi = {
  prefix: '/news',
  endpointFor: (method, path) => (method === 'GET' && path === '/v2/everything' ? 'news.everything' : null),
  apiKey: (req, url) => header(req, 'x-api-key') ?? url.searchParams.get('apiKey'),
  authFailure(status) {
    if (status === 'missing') return error(401, 'apiKeyMissing', 'Your API key is missing. Append this to the URL with the apiKey param, or use the x-api-key HTTP header.');
    if (status === 'exhausted') return error(429, 'apiKeyExhausted', 'Your API key has no more requests available.');
    return error(401, 'apiKeyInvalid', 'Your API key is invalid or incorrect.');
  },
  fault(kind, retryAfterSeconds) {
    if (kind === 'rate_limit') return error(429, 'rateLimited', 'You have been rate limited. Back off for a while before trying the request again.', { 'retry-after': String(retryAfterSeconds) });
    return error(kind === 'unavailable' ? 503 : 500, 'unexpectedError', 'This shouldn\'t happen, and if it does then it\'s our fault, not yours. Try the request again shortly.');
  },
  handle(_endpoint, context) {
    const params = context.url.searchParams;
    const q = params.get('q')?.trim();
    if (!q) return error(400, 'parametersMissing', 'Required parameters are missing. Please set any of the following parameters and try again: q, qInTitle, sources, domains.');
    // Only exact phrase searches of a company name find articles, as a quoted q does on NewsAPI.
    const company = context.world.companyByName(q.replace(/^"|"$/g, ''));
    const from = params.get('from') ? Date.parse(params.get('from')!) : Number.NEGATIVE_INFINITY;
    const { newsHistoryDays } = context.plans;
    if (newsHistoryDays !== null) {
      const oldest = new Date(context.world.now.getTime() - newsHistoryDays * 86_400_000).toISOString().slice(0, 10);
      const asked = Number.isFinite(from) ? new Date(from).toISOString().slice(0, 10) : null;
      if (asked !== null && asked < oldest) {
        return error(426, 'parameterInvalid', `You are trying to request results too far in the past. Your plan permits you to request articles as far back as ${oldest}, but you have requested ${asked}. You may need to upgrade to a paid plan.`);
      }
    }
    const to = params.get('to') ? Date.parse(params.get('to')!) : Number.POSITIVE_INFINITY;
    const pageSize = Math.min(100, Math.max(1, Number(params.get('pageSize') ?? 100) || 100));
    const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
    const articles = (company ? companyNews(context.world, company) : [])
      .filter((a) => a.publishedAt.getTime() >= from && a.publishedAt.getTime() <= to);
    if (params.get('sortBy') !== 'publishedAt') articles.reverse();
    return {
      status: 200,
      body: {
        status: 'ok',
        totalResults: articles.length,
        articles: articles.slice((page - 1) * pageSize, page * pageSize).map((a) => ({
          source: { id: null, name: a.sourceName }, author: a.author, title: a.title, description: a.description,
          url: a.url, urlToImage: null, publishedAt: isoSeconds(a.publishedAt), content: a.content,
        })),
      },
    };
  },
};
