import type { CompanyProfile, NewsArticle, PersonProfile, SocialPost } from '../../domain/enrichment/enrichment.ts';
import type { ProductContext } from '../../domain/research/product-context.ts';

// Caps keep one job's prompt bounded whatever a provider returns.
const MAX_POST_CHARS = 1_500;
const MAX_DESCRIPTION_CHARS = 3_000;
const MAX_NEWS_CHARS = 1_200;

export function productFacts(product: ProductContext) {
  return {
    name: product.name,
    description: clip(product.description, MAX_DESCRIPTION_CHARS),
    keyFeatures: product.keyFeatures,
    targetCustomers: product.targetCustomers,
  };
}

export function personFacts(person: PersonProfile) {
  return {
    fullName: person.fullName,
    title: person.title,
    companyName: person.companyName,
    location: person.location,
    lastRoleStart: person.lastRoleStart,
  };
}

export function companyFacts(company: CompanyProfile) {
  return {
    name: company.name,
    description: company.description === null ? null : clip(company.description, MAX_DESCRIPTION_CHARS),
    industry: company.industry,
    hq: company.hq,
    employees: company.employees,
    revenue: company.revenue,
    website: company.website,
  };
}

export function postFacts(posts: SocialPost[]) {
  return posts.map((post, index) => ({ index, posted: post.posted, reshared: post.reshared, text: clip(post.text, MAX_POST_CHARS) }));
}

export function newsFacts(news: NewsArticle[]) {
  return news.map((article, index) => ({ index, title: article.title, publishedOn: article.publishedOn, text: clip(article.text, MAX_NEWS_CHARS) }));
}

function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}
