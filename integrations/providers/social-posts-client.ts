import { z } from 'zod';
import type { SocialPost } from '../../domain/enrichment/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps } from './http.ts';
import { parseReply, requiredList, text } from './reply-parsing.ts';

// Social Fetch (https://www.socialfetch.dev), public LinkedIn data by URL, read
// from its OpenAPI file https://api.socialfetch.dev/openapi.json (linked from
// every docs page). Base https://api.socialfetch.dev, auth `x-api-key: sfk_…`,
// replies `{ data: …, meta: … }` (https://www.socialfetch.dev/docs/quickstart).
//   Person: GET /v1/linkedin/profiles/posts?url=<profile URL>&limit=<n>
//     (operationId getV1LinkedinProfilesPosts)
//     https://www.socialfetch.dev/docs/api/v1/linkedin/profiles/posts/get
//     200 either way: data.lookupStatus `found` | `not_found`; data.posts[] with
//     `url`, `text` (the post's text), `headline`, `publishedAt` (ISO 8601) and
//     `postType` (`post`, `repost`, `article`), all but `url` nullable.
//     Billed 2 credits a call plus 2 a returned post, `limit` default 10.
//     (GET /v1/linkedin/profiles is a batch profile lookup now, `data.results[]`
//     with `activity[]` and excerpt-only `posts[]`: not where full posts are.)
//   Company: GET /v1/linkedin/companies/posts?url=<company page URL>
//     https://www.socialfetch.dev/docs/api/v1/linkedin/companies/posts/get
//     data.posts[]; its item fields are read like the earlier recent-post shape
//     (`title`, `activityType`), with `text` accepted beside `title`.

export const SOCIAL_APIS = { personPosts: 'social.person_posts', companyPosts: 'social.company_posts' } as const;

/**
 * The reply is cut to 3 posts (docs/api.md#limits); a few more leave room for posts
 * without text, and every returned post is billed.
 */
export const PERSON_POSTS_LIMIT = 6;

const ZProfilePost = z.object({ url: text, text, headline: text, postType: text, publishedAt: text });
const ZProfilePosts = z.object({
  data: z.object({ lookupStatus: z.enum(['found', 'not_found']), posts: requiredList(ZProfilePost) }),
});

const ZActivity = z.object({ id: text, url: text, title: text, text, activityType: text, publishedAt: text });
const ZCompanyPosts = z.object({ data: z.object({ posts: requiredList(ZActivity) }) });

/** ISO timestamp → `YYYY-MM-DD HH:MM:SS` in UTC (docs/api.md#the-prospect). */
function postedAt(value: string): string | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

interface PostFields { url: string | null; body: string | null; publishedAt: string | null; kind: string | null }

function toPosts(items: PostFields[]): SocialPost[] {
  return items.flatMap((item): SocialPost[] => {
    const posted = item.publishedAt ? postedAt(item.publishedAt) : null;
    if (!item.body || !posted || !item.url) return [];
    return [{ text: item.body, posted, postUrl: item.url, reshared: /^re-?post|^reshare/i.test(item.kind ?? '') }];
  }).sort((a, b) => b.posted.localeCompare(a.posted));
}

export interface SocialPostsClient {
  /** Newest first; null when the provider has no public profile at that URL. */
  personPosts(profileUrl: string): Promise<SocialPost[] | null>;
  /** Newest first; null without a company page URL (the provider looks pages up by URL only). */
  companyPosts(company: { socialUrl: string | null; domain: string | null }): Promise<SocialPost[] | null>;
}

export function createSocialPostsClient(endpoint: ProviderEndpoint, http: HttpDeps): SocialPostsClient {
  const get = (path: string, query: Record<string, string>, api: string) => {
    const url = new URL(`${endpoint.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return requestJson(http, { api, url: url.href, headers: { 'x-api-key': endpoint.apiKey } });
  };

  return {
    async personPosts(profileUrl) {
      const query = { url: profileUrl, limit: String(PERSON_POSTS_LIMIT) };
      const reply = await get('/v1/linkedin/profiles/posts', query, SOCIAL_APIS.personPosts);
      if (reply.status === 404) return null;
      const { data } = parseReply(ZProfilePosts, reply.body, SOCIAL_APIS.personPosts);
      if (data.lookupStatus === 'not_found') return null;
      // An article may come without `text`; its headline is what it says.
      return toPosts(data.posts.map((post) => ({ url: post.url, body: post.text ?? post.headline, publishedAt: post.publishedAt, kind: post.postType })));
    },
    async companyPosts(company) {
      if (!company.socialUrl) return null;
      const reply = await get('/v1/linkedin/companies/posts', { url: company.socialUrl }, SOCIAL_APIS.companyPosts);
      if (reply.status === 404) return null;
      const { posts } = parseReply(ZCompanyPosts, reply.body, SOCIAL_APIS.companyPosts).data;
      return toPosts(posts.map((post) => ({ url: post.url, body: post.text ?? post.title, publishedAt: post.publishedAt, kind: post.activityType })));
    },
  };
}
