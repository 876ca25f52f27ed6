import type { WorldPerson } from './generate-world.ts';
import { companyPosts, personPosts, type WorldPost } from './posts-and-news.ts';
import { photoUrl } from './photos.ts';
import { header, str, type ProviderApi, type Reply } from './provider-api.ts';
import type { World } from './world.ts';

// Social Fetch (https://www.socialfetch.dev), written from its OpenAPI file
// https://api.socialfetch.dev/openapi.json (not from our client). Auth
// `x-api-key`; replies `{data, meta}`, errors `{error: {code, message, requestId}}`.
//   GET /v1/linkedin/profiles/posts?url=<profile URL or handle>[&limit=1..200, default 10]
//       (getV1LinkedinProfilesPosts) https://www.socialfetch.dev/docs/api/v1/linkedin/profiles/posts/get
//       200 either way: data.lookupStatus `found` | `not_found`, data.posts[] (one
//       post of the profile's feed: id, url, text, headline, publishedAt,
//       postType `post` | `repost` | `article`, repost details, metrics, author
//       fields…), data.summary.returned; 2 credits plus 2 a returned post.
//   GET /v1/linkedin/profiles?url=<u1>&url=<u2>… (1..50; getV1LinkedinProfiles)
//       https://www.socialfetch.dev/docs/api/v1/linkedin/profiles/get
//       a batch lookup: data.results[] ({url, lookupStatus `found` | `not_found` |
//       `error`, error, profile, metrics, activity[], posts[], relatedProfiles[]}),
//       data.summary; 2 credits a URL.
//   GET /v1/linkedin/companies/posts?url=<company page URL>[&page=n]
//       https://www.socialfetch.dev/docs/api/v1/linkedin/companies/posts/get
//       page-based (at most 7 pages); data.posts[] ({id, url, title,
//       activityType `Post` | `Repost`, publishedAt}).

const PAGE_SIZE = 10;
const MAX_PAGES = 7;
const MAX_BATCH_URLS = 50;
const MAX_POSTS_LIMIT = 200;
const CREDITS_PER_UNIT = 2;

let requests = 0;
const meta = (creditsCharged: number) => ({ requestId: `req_sandbox_${(++requests).toString(36)}`, creditsCharged, version: 'v1' });

function failure(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return { status, body: { error: { code, message, requestId: `req_sandbox_${(++requests).toString(36)}` } }, headers };
}

const handleOf = (person: WorldPerson) => person.linkedinUrl.split('/').pop() ?? '';
const firstSentence = (text: string) => text.match(/^.*?[.!?](\s|$)/)?.[0].trim() ?? text;

/** "LinkedIn profile URL or vanity handle" (the `url` parameter's description). */
function personAt(world: World, urlOrHandle: string): WorldPerson | undefined {
  const handle = urlOrHandle.replace(/^@/, '').replace(/^in\//, '');
  return /[/.]/.test(handle) ? world.personByProfile(urlOrHandle) : world.personByProfile(`https://www.linkedin.com/in/${handle}`);
}

function profilePost(baseUrl: string, person: WorldPerson, post: WorldPost) {
  return {
    id: post.id, url: post.url, authorUserId: handleOf(person),
    title: `${firstSentence(post.text)} | ${person.fullName} | ${post.comments} comments`,
    headline: firstSentence(post.text), text: post.text, publishedAt: post.postedAt.toISOString(),
    hashtags: null, embeddedLinks: null, images: null, videos: null,
    metrics: { likes: post.reactions, comments: post.comments, reposts: null },
    moreArticlesByUser: null, moreRelevantPosts: null, topVisibleComments: null,
    authorFollowers: 40 + (person.index * 37) % 4000, authorPostCount: null, authorArticleCount: null,
    postType: post.reshared ? 'repost' : 'post', accountType: 'Person', postTextHtml: post.text,
    repost: post.reshared
      ? {
          repostUrl: post.url, repostUserId: null, repostUserName: null, repostText: post.text,
          repostDate: post.postedAt.toISOString(), repostId: post.id, repostUserTitle: null,
          repostHangtags: null, repostAttachments: null, taggedUsers: null, taggedCompanies: null,
        }
      : null,
    taggedCompanies: null, taggedPeople: null, authorName: null, authorProfileUrl: person.linkedinUrl,
    authorTitle: null, authorProfilePicUrl: photoUrl(baseUrl, person), authorConnectionCount: null, videoDurationSec: null,
    externalLinkPreviews: null, videoThumbnailUrl: null, documentCoverImageUrl: null, documentPageCount: null,
    originalPostText: post.text,
  };
}

function profilePostsReply(world: World, baseUrl: string, url: string, limit: number): Reply {
  const person = personAt(world, url);
  if (!person) return { status: 200, body: { data: { lookupStatus: 'not_found', posts: [], summary: { returned: 0 } }, meta: meta(CREDITS_PER_UNIT) } };
  const posts = personPosts(world, person).slice(0, limit).map((post) => profilePost(baseUrl, person, post));
  return {
    status: 200,
    body: { data: { lookupStatus: 'found', posts, summary: { returned: posts.length } }, meta: meta(CREDITS_PER_UNIT * (1 + posts.length)) },
  };
}

function profileResult(world: World, baseUrl: string, url: string) {
  const person = personAt(world, url);
  if (!person) return { url, lookupStatus: 'not_found', error: null, profile: null, metrics: null, activity: [], posts: [], relatedProfiles: [] };
  const company = world.companies[person.company];
  const posts = personPosts(world, person);
  return {
    url, lookupStatus: 'found', error: null,
    profile: {
      platform: 'linkedin', handle: handleOf(person), numericId: String(10_000_000 + person.index), displayName: person.fullName,
      firstName: person.firstName, lastName: person.lastName, headline: `${person.title} at ${company.name}`, bio: null,
      avatarUrl: photoUrl(baseUrl, person), bannerUrl: null, profileUrl: person.linkedinUrl, location: person.location,
      city: null, countryCode: null, influencer: false, memorialized: false, defaultAvatar: false,
      currentCompany: { name: company.name, companyId: company.linkedinUrl.split('/').pop() ?? null, title: person.title, url: company.linkedinUrl, location: null },
      websites: [], experience: [], education: [], languages: [], organizations: [], publications: [], projects: [],
      honorsAndAwards: [], recommendations: [], certifications: [], courses: [], volunteerExperience: [],
    },
    metrics: { followers: 40 + (person.index * 37) % 4000, connections: 500, recommendationsCount: null },
    activity: posts.map((post) => ({
      id: post.id, url: post.url, title: post.text,
      interactionType: `${post.reshared ? 'Reposted' : 'Posted'} by ${person.fullName}`, thumbnailUrl: null, publishedAt: null,
    })),
    posts: posts.filter((post) => !post.reshared).map((post) => ({
      id: post.id, url: post.url, title: firstSentence(post.text), excerpt: post.text.slice(0, 120),
      publishedAt: post.postedAt.toISOString(), interaction: `${post.reactions} reactions`,
    })),
    relatedProfiles: [],
  };
}

function profilesReply(world: World, baseUrl: string, urls: string[]): Reply {
  const results = urls.map((url) => profileResult(world, baseUrl, url));
  const count = (status: string) => results.filter((r) => r.lookupStatus === status).length;
  const summary = { requestedUrls: urls.length, found: count('found'), notFound: count('not_found'), errored: count('error') };
  return { status: 200, body: { data: { results, summary }, meta: meta(CREDITS_PER_UNIT * urls.length) } };
}

function activity(post: WorldPost) {
  return { id: post.id, url: post.url, title: post.text, activityType: post.reshared ? 'Repost' : 'Post', publishedAt: post.postedAt.toISOString() };
}

function companyPostsReply(world: World, url: string, page: number): Reply {
  const company = world.companyByProfile(url);
  if (!company) return failure(404, 'not_found', 'No LinkedIn company page at this URL');
  const posts = companyPosts(world, company);
  const slice = posts.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const hasMore = posts.length > page * PAGE_SIZE && page < MAX_PAGES;
  return { status: 200, body: { data: { posts: slice.map(activity), page: { current: page, hasMore } } } };
}

function postsLimit(value: string | null): number | null {
  if (value === null) return 10;
  const limit = Number(value);
  return Number.isInteger(limit) && limit >= 1 && limit <= MAX_POSTS_LIMIT ? limit : null;
}

export const socialApi: ProviderApi = {
  prefix: '/social',
  endpointFor(method, path) {
    if (method !== 'GET') return null;
    if (path === '/v1/linkedin/profiles/posts') return 'social.person_posts';
    if (path === '/v1/linkedin/profiles') return 'social.profiles';
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
    if (kind === 'unavailable') return failure(503, 'temporarily_unavailable', 'Service temporarily unavailable');
    return failure(500, 'internal_error', 'Unexpected error');
  },
  handle(endpoint, context) {
    const { searchParams } = context.url;
    if (endpoint === 'social.profiles') {
      const urls = searchParams.getAll('url').map((u) => str(u)).filter((u): u is string => u !== undefined);
      if (urls.length === 0 || urls.length > MAX_BATCH_URLS) return failure(400, 'bad_request', `url is required, at most ${MAX_BATCH_URLS}`);
      return profilesReply(context.world, context.baseUrl, urls);
    }
    const url = str(searchParams.get('url'));
    if (!url) return failure(400, 'bad_request', 'url is required');
    if (endpoint === 'social.person_posts') {
      const limit = postsLimit(searchParams.get('limit'));
      if (limit === null) return failure(400, 'bad_request', `limit must be an integer from 1 to ${MAX_POSTS_LIMIT}`);
      return profilePostsReply(context.world, context.baseUrl, url, limit);
    }
    const page = Math.min(MAX_PAGES, Math.max(1, Number(searchParams.get('page') ?? 1) || 1));
    return companyPostsReply(context.world, url, page);
  },
};
