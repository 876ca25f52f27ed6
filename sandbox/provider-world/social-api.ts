import { companyPosts, personPosts, type WorldPost } from './posts-and-news.ts';
import { header, param, type ProviderApi, type Reply } from './provider-api.ts';

// A social-data API in the style of the LinkedIn scraping services
// (`X-Api-Key` header, GET with the profile or company URL, newest posts
// first, `{error: {code, message}}` on failure).

function error(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return { status, body: { error: { code, message } }, headers };
}

function postsReply(posts: WorldPost[], limit: number, subject: Record<string, string>): Reply {
  return {
    status: 200,
    body: {
      ...subject,
      posts: posts.slice(0, limit).map((p) => ({
        urn: `urn:li:activity:${p.id}`, text: p.text, posted_at: p.postedAt.toISOString(),
        post_url: p.url, is_reshare: p.reshared, reactions_count: p.reactions, comments_count: p.comments,
      })),
      paging: { count: Math.min(limit, posts.length), total: posts.length },
    },
  };
}

export const socialApi: ProviderApi = {
  prefix: '/social',
  endpointFor(method, path) {
    if (method !== 'GET') return null;
    if (path === '/v1/person-posts') return 'social.person_posts';
    if (path === '/v1/company-posts') return 'social.company_posts';
    return null;
  },
  apiKey: (req) => header(req, 'x-api-key'),
  authFailure(status) {
    if (status === 'exhausted') return error(402, 'insufficient_credits', 'Credits balance insufficient to process the request');
    return error(401, 'unauthorized', 'No valid API key provided');
  },
  fault(kind, retryAfterSeconds) {
    if (kind === 'rate_limit') return error(429, 'rate_limited', 'Too many requests', { 'retry-after': String(retryAfterSeconds) });
    return error(kind === 'unavailable' ? 503 : 500, 'server_error', 'Upstream temporarily unavailable');
  },
  handle(endpoint, context) {
    const { world } = context;
    const limit = Math.min(50, Math.max(1, Number(param(context, 'limit') ?? 10) || 10));
    if (endpoint === 'social.person_posts') {
      const url = param(context, 'profile_url');
      if (!url) return error(400, 'invalid_request', 'profile_url is required');
      const person = world.personByProfile(url);
      if (!person) return error(404, 'profile_not_found', 'No public profile at this URL');
      return postsReply(personPosts(world, person), limit, { profile_url: person.linkedinUrl });
    }
    const url = param(context, 'company_url');
    const domain = param(context, 'domain');
    if (!url && !domain) return error(400, 'invalid_request', 'company_url or domain is required');
    const company = (url && world.companyByProfile(url)) || (domain && world.companyByDomain(domain)) || undefined;
    if (!company) return error(404, 'company_not_found', 'No public company page found');
    return postsReply(companyPosts(world, company), limit, { company_url: company.linkedinUrl });
  },
};
