import { z } from 'zod';
import type { SocialPost } from '../../domain/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps } from './http.ts';
import { bool, parseReply, text, tolerantList } from './reply-parsing.ts';

// A social-data API (LinkedIn-scraper style): posts of a person's profile or
// of a company page, newest first, `X-Api-Key` header.

export const SOCIAL_APIS = { personPosts: 'social.person_posts', companyPosts: 'social.company_posts' } as const;

const ZPosts = z.object({
  posts: tolerantList(z.object({ text, posted_at: text, post_url: text, is_reshare: bool })),
});

/** ISO timestamp → `YYYY-MM-DD HH:MM:SS` in UTC (spec §2.2). */
function postedAt(value: string): string | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export interface SocialPostsClient {
  personPosts(profileUrl: string): Promise<SocialPost[] | null>;
  companyPosts(company: { socialUrl: string | null; domain: string | null }): Promise<SocialPost[] | null>;
}

export function createSocialPostsClient(endpoint: ProviderEndpoint, http: HttpDeps): SocialPostsClient {
  const fetchPosts = async (path: string, params: Record<string, string>, api: string) => {
    const url = new URL(`${endpoint.baseUrl}${path}`);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    url.searchParams.set('limit', '10');
    const reply = await requestJson(http, { api, url: url.href, headers: { 'X-Api-Key': endpoint.apiKey } });
    if (reply.status === 404) return null;
    return parseReply(ZPosts, reply.body, api).posts.flatMap((post): SocialPost[] => {
      const posted = post.posted_at ? postedAt(post.posted_at) : null;
      if (!post.text || !posted || !post.post_url) return [];
      return [{ text: post.text, posted, postUrl: post.post_url, reshared: post.is_reshare ?? false }];
    }).sort((a, b) => b.posted.localeCompare(a.posted));
  };

  return {
    personPosts: (profileUrl) => fetchPosts('/v1/person-posts', { profile_url: profileUrl }, SOCIAL_APIS.personPosts),
    async companyPosts(company) {
      const params: Record<string, string> | null = company.socialUrl ? { company_url: company.socialUrl } : company.domain ? { domain: company.domain } : null;
      return params ? fetchPosts('/v1/company-posts', params, SOCIAL_APIS.companyPosts) : null;
    },
  };
}
