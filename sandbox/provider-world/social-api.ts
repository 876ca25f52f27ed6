import { companyPosts, personPosts, type WorldPost } from './posts-and-news.ts';
import { header, str, type ProviderApi, type Reply } from './provider-api.ts';
import type { World } from './world.ts';

// Social Fetch (https://www.socialfetch.dev), written from its documentation
// (not from our client). Auth `x-api-key`; replies wrapped in `{data}`.
//   GET /v1/linkedin/profiles?url=<profile URL>
//       https://www.socialfetch.dev/docs/api/v1/linkedin/profiles/get
//       data.lookupStatus `found` | `not_found` (HTTP 200 either way), data.profile
//       (platform, handle, displayName, bio, avatarUrl, profileUrl, location) or null,
//       data.metrics ({followers}) or null, data.recentPosts[] ({id, url, title,
//       activityType `Post` | `Repost`, publishedAt ISO 8601}).
//   GET /v1/linkedin/companies/posts?url=<company page URL>[&page=n]
//       https://www.socialfetch.dev/docs/api/v1/linkedin/companies/posts/get
//       page-based (at most 7 pages); data.posts[] in the recent-post item shape
//       above (README "Data providers" notes what is still to verify).

const PAGE_SIZE = 10;
const MAX_PAGES = 7;

function failure(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return { status, body: { error: { code, message } }, headers };
}

function activity(post: WorldPost) {
  return { id: post.id, url: post.url, title: post.text, activityType: post.reshared ? 'Repost' : 'Post', publishedAt: post.postedAt.toISOString() };
}

function profileReply(world: World, url: string): Reply {
  const person = world.personByProfile(url);
  if (!person) return { status: 200, body: { data: { lookupStatus: 'not_found', profile: null, metrics: null, recentPosts: [] } } };
  const company = world.companies[person.company];
  const handle = person.linkedinUrl.split('/').pop() ?? '';
  return {
    status: 200,
    body: {
      data: {
        lookupStatus: 'found',
        profile: {
          platform: 'linkedin', handle, displayName: person.fullName, bio: `${person.title} at ${company.name}`,
          avatarUrl: person.photoUrl, profileUrl: person.linkedinUrl, location: person.location,
        },
        metrics: { followers: 40 + (person.index * 37) % 4000 },
        recentPosts: personPosts(world, person).map(activity),
      },
    },
  };
}

function companyPostsReply(world: World, url: string, page: number): Reply {
  const company = world.companyByProfile(url);
  if (!company) return failure(404, 'not_found', 'No LinkedIn company page at this URL');
  const posts = companyPosts(world, company);
  const slice = posts.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const hasMore = posts.length > page * PAGE_SIZE && page < MAX_PAGES;
  return { status: 200, body: { data: { posts: slice.map(activity), page: { current: page, hasMore } } } };
}

export const socialApi: ProviderApi = {
  prefix: '/social',
  endpointFor(method, path) {
    if (method !== 'GET') return null;
    if (path === '/v1/linkedin/profiles') return 'social.person_posts';
    if (path === '/v1/linkedin/companies/posts') return 'social.company_posts';
    return null;
  },
  apiKey: (req) => header(req, 'x-api-key'),
  authFailure(status) {
    if (status === 'exhausted') return failure(402, 'insufficient_credits', 'Your account has no credits left');
    return failure(401, 'unauthorized', status === 'missing' ? 'Missing x-api-key header' : 'Invalid API key');
  },
  fault(kind, retryAfterSeconds) {
    if (kind === 'rate_limit') return failure(429, 'rate_limited', 'Too many requests', { 'retry-after': String(retryAfterSeconds) });
    return failure(kind === 'unavailable' ? 503 : 500, 'upstream_error', 'Upstream temporarily unavailable');
  },
  handle(endpoint, context) {
    const url = str(context.url.searchParams.get('url'));
    if (!url) return failure(400, 'invalid_request', 'url is required');
    if (endpoint === 'social.person_posts') return profileReply(context.world, url);
    const page = Math.min(MAX_PAGES, Math.max(1, Number(context.url.searchParams.get('page') ?? 1) || 1));
    return companyPostsReply(context.world, url, page);
  },
};
