import { z } from 'zod';
import type { SocialPost } from '../../domain/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps } from './http.ts';
import { parseReply, requiredList, text } from './reply-parsing.ts';

// Social Fetch (https://www.socialfetch.dev), public LinkedIn data by URL.
// Base https://api.socialfetch.dev, auth `x-api-key: sfk_…`, replies wrapped in
// `{ data: … }` (https://www.socialfetch.dev/docs/quickstart).
//   Person: GET /v1/linkedin/profiles?url=<profile URL>
//     https://www.socialfetch.dev/docs/api/v1/linkedin/profiles/get
//     data.lookupStatus `found` | `not_found`; data.recentPosts[] with `id`, `url`,
//     `title` (the post's text), `activityType` (`Post`, `Repost`), `publishedAt` (ISO 8601).
//   Company: GET /v1/linkedin/companies/posts?url=<company page URL>
//     https://www.socialfetch.dev/docs/api/v1/linkedin/companies/posts/get
//     data.posts[]; its item fields are read like the profile's recent posts,
//     with `text` accepted beside `title` (README "Data providers": to verify
//     against the provider's OpenAPI file before production use).

export const SOCIAL_APIS = { personPosts: 'social.person_posts', companyPosts: 'social.company_posts' } as const;

const ZActivity = z.object({ id: text, url: text, title: text, text, activityType: text, publishedAt: text });

const ZProfile = z.object({
  data: z.object({ lookupStatus: z.enum(['found', 'not_found']), recentPosts: requiredList(ZActivity) }),
});
const ZCompanyPosts = z.object({ data: z.object({ posts: requiredList(ZActivity) }) });

/** ISO timestamp → `YYYY-MM-DD HH:MM:SS` in UTC (spec §2.2). */
function postedAt(value: string): string | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

function toPosts(activities: z.output<typeof ZActivity>[]): SocialPost[] {
  return activities.flatMap((activity): SocialPost[] => {
    const body = activity.text ?? activity.title;
    const posted = activity.publishedAt ? postedAt(activity.publishedAt) : null;
    if (!body || !posted || !activity.url) return [];
    return [{ text: body, posted, postUrl: activity.url, reshared: /^re-?post|^reshare/i.test(activity.activityType ?? '') }];
  }).sort((a, b) => b.posted.localeCompare(a.posted));
}

export interface SocialPostsClient {
  /** Newest first; null when the provider has no public profile at that URL. */
  personPosts(profileUrl: string): Promise<SocialPost[] | null>;
  /** Newest first; null without a company page URL (the provider looks pages up by URL only). */
  companyPosts(company: { socialUrl: string | null; domain: string | null }): Promise<SocialPost[] | null>;
}

export function createSocialPostsClient(endpoint: ProviderEndpoint, http: HttpDeps): SocialPostsClient {
  const get = (path: string, pageUrl: string, api: string) => {
    const url = new URL(`${endpoint.baseUrl}${path}`);
    url.searchParams.set('url', pageUrl);
    return requestJson(http, { api, url: url.href, headers: { 'x-api-key': endpoint.apiKey } });
  };

  return {
    async personPosts(profileUrl) {
      const reply = await get('/v1/linkedin/profiles', profileUrl, SOCIAL_APIS.personPosts);
      if (reply.status === 404) return null;
      const { data } = parseReply(ZProfile, reply.body, SOCIAL_APIS.personPosts);
      return data.lookupStatus === 'not_found' ? null : toPosts(data.recentPosts);
    },
    async companyPosts(company) {
      if (!company.socialUrl) return null;
      const reply = await get('/v1/linkedin/companies/posts', company.socialUrl, SOCIAL_APIS.companyPosts);
      if (reply.status === 404) return null;
      return toPosts(parseReply(ZCompanyPosts, reply.body, SOCIAL_APIS.companyPosts).data.posts);
    },
  };
}
