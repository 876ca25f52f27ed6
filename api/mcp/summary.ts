import type { z } from 'zod';
import type { ResearchData } from '../../domain/research/reply.ts';
import { shortText } from '../../domain/shown-text.ts';
import type { ZResearchSummary } from './schemas.ts';

type Summary = z.infer<typeof ZResearchSummary>;

/** docs/mcp.md#context-budget: a summary stays within 2,000 tokens (characters ÷ 4). */
export const SUMMARY_MAX_CHARS = 8_000;
const ITEMS = { list: 3, posts: 3, news: 3, decisionMakers: 5, technologies: 12 };

/**
 * The bounded view of a completed reply: the fields a salesperson reads
 * before a call, each text cut to a length, lists to their first items; cut
 * shorter until the whole fits the budget. Post and news texts are third
 * parties' words, carried as data; generated fields are named as such.
 */
export function summarise(data: ResearchData): Summary {
  for (let maxChars = 280; ; maxChars -= 40) {
    const summary = build(data, maxChars);
    if (JSON.stringify(summary).length <= SUMMARY_MAX_CHARS || maxChars <= 40) return summary;
  }
}

function build(data: ResearchData, maxChars: number): Summary {
  const text = (value: string | null | undefined) => (value ? shortText(value, maxChars) : null);
  const list = (values: string[] | null | undefined, count = ITEMS.list) => (values ?? []).slice(0, count).map((value) => shortText(value, maxChars));
  const { prospect, company } = data;
  return {
    prospect: prospect && {
      name: prospect.name,
      title: prospect.title,
      company: prospect.company,
      email: prospect.email,
      social_url: prospect.social_url,
      last_role_start: prospect.last_role_start,
      summary: text(prospect.summary),
      opening_talk: list(prospect.opening_talk),
      recent_posts: (prospect.posts ?? []).slice(0, ITEMS.posts).map((post) => ({ posted: post.posted, text: shortText(post.text, maxChars), post_url: post.post_url })),
    },
    company: company && {
      name: company.name,
      website: company.website,
      industry: company.industry,
      hq: company.hq,
      employees: company.employees,
      revenue: company.revenue,
      description: text(company.description),
      problems: list(company.problems),
      synergy_points: list(company.synergy_points),
      discovery_questions: list(company.discovery_questions),
      insights: list(company.insights),
      technologies: list(company.technologies, ITEMS.technologies),
      news: (company.news ?? []).slice(0, ITEMS.news).map((item) => ({ date: item.date, summary: text(item.summary), url: item.url })),
    },
    decision_makers: data.decision_makers.slice(0, ITEMS.decisionMakers).map((person) => ({
      full_name: person.full_name,
      position_title: person.position_title,
      social_url: person.social_url,
    })),
    generated_by_ai: [
      'prospect.summary', 'prospect.opening_talk', 'company.problems', 'company.synergy_points', 'company.discovery_questions', 'company.insights',
    ],
  };
}
