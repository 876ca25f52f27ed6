import { pino } from 'pino';
import type { InsightsInput } from '../../domain/research/insights.ts';
import type { Language } from '../../domain/research/languages.ts';
import type { SocialPost } from '../../domain/enrichment/enrichment.ts';
import { createAiConfig } from '../../integrations/ai/ai-config.ts';
import { createInsightsGenerator } from '../../integrations/ai/insights-generator.ts';
import type { ModelSandbox } from '../../sandbox/model/model-sandbox.ts';

export const silentLogger = pino({ level: 'silent' });

/** A generator on the real OpenAI SDK pointed at the sandbox, with short retry settings for fast tests. */
export function sandboxGenerator(sandbox: ModelSandbox, env: Record<string, string> = {}) {
  const config = createAiConfig({ AI_SANDBOX_URL: sandbox.url, AI_MAX_RETRIES: '1', AI_TIMEOUT_MS: '5000', ...env });
  return createInsightsGenerator(config, silentLogger);
}

export function post(text: string, day = 1): SocialPost {
  return { text, posted: `2026-10-${String(day).padStart(2, '0')} 09:30:00`, postUrl: `https://social.example/posts/${day}`, reshared: false };
}

export function insightsInput(overrides: Partial<InsightsInput> = {}): InsightsInput {
  return {
    language: 'en' as Language,
    productContext: {
      name: 'PipelinePilot',
      description: 'A sales CRM that researches prospects and scores leads.',
      keyFeatures: ['automatic lead scoring', 'prospect research in one click', 'e-mail sequences'],
      targetCustomers: ['B2B sales teams'],
      productUrl: 'https://pipelinepilot.example/',
    },
    person: {
      fullName: 'Claire Dubois',
      title: 'Directrice Marketing',
      companyName: 'Lumière Logiciels',
      companyDomain: 'lumiere-logiciels.fr',
      companySocialUrl: null,
      email: 'claire.dubois@lumiere-logiciels.fr',
      socialUrl: 'https://social.example/in/claire-dubois',
      photoUrl: null,
      lastRoleStart: '2023-04-01',
      location: 'Lyon, France',
    },
    personPosts: [post('We just launched our new partner programme for resellers in Europe.', 1), post('Three lessons from our spring marketing campaign.', 2)],
    company: {
      name: 'Lumière Logiciels',
      description: 'Lumière Logiciels est un éditeur de logiciels de gestion pour les cabinets comptables et les entreprises de services.',
      socialUrl: 'https://social.example/company/lumiere',
      website: 'https://lumiere-logiciels.fr',
      domain: 'lumiere-logiciels.fr',
      industry: 'software',
      hq: 'Lyon, France',
      revenue: null,
      employees: '51-200',
      clientsCount: null,
    },
    companyPosts: [post('We are hiring three account executives in Lyon.', 3)],
    news: [
      { title: 'Lumière Logiciels opens an office in Brussels', text: 'The software company expands to Belgium.', url: 'https://news.example/1', publishedOn: '2026-09-12' },
      { title: 'Lumière Logiciels wins regional innovation award', text: 'The award honours its accounting suite.', url: 'https://news.example/2', publishedOn: '2026-06-03' },
    ],
    technologies: ['React', 'PostgreSQL'],
    needs: { prospect: true, company: true },
    ...overrides,
  };
}

// Function words per language, independent of the sandbox's templates: the test's own judge of a text's language.
const FUNCTION_WORDS: Record<Language, string[]> = {
  en: ['the', 'and', 'of', 'is', 'with', 'for', 'that', 'their', 'which', 'how', 'what'],
  pl: ['w', 'jest', 'się', 'dla', 'który', 'oraz', 'nad', 'jak', 'co', 'firmy', 'ze'],
  de: ['der', 'die', 'das', 'und', 'ist', 'mit', 'für', 'von', 'den', 'wie', 'ihre'],
  fr: ['le', 'les', 'et', 'des', 'est', 'pour', 'dans', 'du', 'une', 'sur', 'qui'],
  es: ['el', 'los', 'las', 'y', 'es', 'para', 'del', 'con', 'su', 'sus', 'qué'],
  it: ['il', 'di', 'per', 'che', 'della', 'nel', 'è', 'dei', 'gli', 'suoi', 'sulla'],
  pt: ['o', 'os', 'as', 'do', 'da', 'é', 'no', 'na', 'dos', 'seus', 'pelas'],
  nl: ['het', 'een', 'van', 'voor', 'met', 'bij', 'op', 'wat', 'hoe', 'zijn', 'aan'],
};

export function judgeLanguage(text: string): Language {
  const words = text.toLocaleLowerCase().split(/[^\p{L}]+/u);
  const scores = (Object.keys(FUNCTION_WORDS) as Language[]).map((language) => {
    const vocabulary = new Set(FUNCTION_WORDS[language]);
    return { language, score: words.filter((word) => vocabulary.has(word)).length };
  });
  scores.sort((a, b) => b.score - a.score);
  return scores[0].language;
}
