import type { ICompanyRow } from '../../db/entities/company.ts';
import type { IDecisionMakerRow } from '../../db/entities/decision-maker.ts';
import type { IProspectRow } from '../../db/entities/prospect.ts';
import { ageInDays } from '../../domain/enrichment/cache-policy.ts';
import { withoutProspect } from '../../domain/enrichment/decision-makers.ts';
import { displayTitle } from '../../domain/enrichment/display-text.ts';
import { classifyEmail } from '../../domain/research/email-classification.ts';
import { prospectReason } from '../../domain/research/prospect-reason.ts';
import type { NewsArticle, SocialPost } from '../../domain/enrichment/enrichment.ts';
import type { ResearchOutcome } from '../../domain/research/pipeline.ts';
import type { ReplyMeta, ResearchData, StoredResearchReply } from '../../domain/research/reply.ts';

const MAX_POSTS = 3;
const MAX_NEWS = 3;
const NEWS_MAX_AGE_MONTHS = 12;

export interface ReplyInput {
  email: string;
  prospectRow: IProspectRow;
  companyRow: ICompanyRow | null;
  decisionMakerRows: IDecisionMakerRow[];
  outcome: ResearchOutcome;
  entitlements: { decisionMakers: boolean; companyNews: boolean };
  now: Date;
}

/** The completed reply (docs/api.md#the-result) from the stored rows; plan rules decide what is shown. */
export function buildStoredReply(input: ReplyInput): StoredResearchReply {
  const data: ResearchData = {
    prospect: prospectData(input.prospectRow, input.email),
    company: input.companyRow?.profile ? companyData(input.companyRow, input.entitlements.companyNews, input.now) : null,
    decision_makers: input.entitlements.decisionMakers
      ? withoutProspect(input.decisionMakerRows, input.prospectRow.profile ?? null).map(decisionMakerData)
      : [],
  };
  return { data, meta: meta(input) };
}

function prospectData(row: IProspectRow, email: string): ResearchData['prospect'] {
  const profile = row.profile;
  const insights = row.insights;
  return {
    id: row.id,
    name: profile?.fullName ?? null,
    // Always English (docs/decisions.md#data-and-ai): without the AI step's translation there is no title to show.
    // The model's spelling gets the same display case as every provider title (domain/enrichment/display-text.ts).
    title: displayTitle(insights?.titleEnglish),
    company: profile?.companyName ?? null,
    email,
    social_url: profile?.socialUrl ?? null,
    photo: profile?.photoUrl ?? null,
    last_role_start: profile?.lastRoleStart ?? null,
    summary: insights?.summary ?? null,
    opening_talk: insights?.openingTalk ?? null,
    posts: row.posts ? postsData(row.posts, insights?.postSummaries) : null,
  };
}

function companyData(row: ICompanyRow, hasNews: boolean, now: Date): ResearchData['company'] {
  const profile = row.profile!;
  const insights = row.insights;
  return {
    id: row.id,
    name: profile.name,
    description: insights?.descriptionEnglish ?? null,
    social_url: profile.socialUrl,
    website: profile.website,
    industry: profile.industry,
    hq: profile.hq,
    revenue: profile.revenue,
    employees: profile.employees,
    technologies: row.technologies ?? null,
    problems: insights?.problems ?? null,
    services: insights?.services ?? null,
    icp: insights?.icp ?? null,
    synergy_points: insights?.synergyPoints ?? null,
    discovery_questions: insights?.discoveryQuestions ?? null,
    clients: profile.clientsCount ? { count: profile.clientsCount } : null,
    news: hasNews && row.news ? newsData(row.news, insights?.newsSummaries, now) : [],
    insights: insights?.insights ?? null,
    posts: row.posts ? postsData(row.posts, insights?.postSummaries) : null,
  };
}

function postsData(posts: SocialPost[], summaries: string[] | undefined) {
  return posts.slice(0, MAX_POSTS).map((post, index) => ({
    text: post.text,
    posted: post.posted,
    post_url: post.postUrl,
    reshared: post.reshared,
    summary: summaries?.[index] ?? null,
  }));
}

/** docs/api.md#the-company: at most 3 items, at most 12 months old on the day of the reply. */
function newsData(news: NewsArticle[], summaries: string[] | undefined, now: Date) {
  const oldest = new Date(now);
  oldest.setUTCMonth(oldest.getUTCMonth() - NEWS_MAX_AGE_MONTHS);
  const cutoff = oldest.toISOString().slice(0, 10);
  return news
    .map((article, index) => ({ article, summary: summaries?.[index] ?? null }))
    .filter(({ article }) => article.publishedOn >= cutoff)
    .slice(0, MAX_NEWS)
    .map(({ article, summary }) => ({ summary, url: article.url, date: article.publishedOn.slice(0, 7) }));
}

function decisionMakerData(row: IDecisionMakerRow): ResearchData['decision_makers'][number] {
  return {
    id: row.id,
    full_name: row.fullName,
    position_title: row.positionTitle,
    social_url: row.socialUrl,
    picture_url: row.pictureUrl ?? null,
    location_text: row.locationText ?? null,
    company_name: row.companyName,
  };
}

// Served from the cache: not fetched on this run, but fetched successfully
// before. A part whose lookup failed this run and was never cached is not.
function meta({ prospectRow, companyRow, outcome, now }: ReplyInput): ReplyMeta {
  const fetchedAt = prospectRow.fetchedAt;
  const companyFromCache = !outcome.company?.isRefreshed && companyRow?.fetchedAt != null;
  const reason = prospectReason(classifyEmail(prospectRow.email), {
    isFound: prospectRow.profile != null,
    // Answered this run, or earlier (a cached "not found" is an answer too).
    wasAnswered: outcome.prospect.isRefreshed || fetchedAt != null,
  });
  return {
    prospect: {
      from_cache: !outcome.prospect.isRefreshed && fetchedAt != null,
      cache_age_days: fetchedAt ? ageInDays(fetchedAt, now) : 0,
      source: prospectRow.source ?? null,
      ...(reason ? { reason } : {}),
    },
    ...(companyRow && outcome.company ? { company: { from_cache: companyFromCache, apis_called: outcome.company.apisCalled } } : {}),
    ai: { source: outcome.ai.source, generated: outcome.ai.usage !== null },
  };
}
