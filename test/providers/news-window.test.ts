import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnrichmentSources, newsWindowStart } from '../../integrations/providers/waterfall-sources.ts';
import { companyNews } from '../../sandbox/provider-world/posts-and-news.ts';
import { startProviderWorld, type ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { directConfig, FAST_RETRY, recordingLogger, WORLD_NOW } from './provider-fixture.ts';

// NewsAPI's Developer plan searches one month back and refuses an older `from`
// ("too far in the past"). That used to end as an empty news list and one log
// line; now the client asks within the configured plan window, and a refusal is
// the part being unavailable this run, never "no news".

const DAY_MS = 86_400_000;
let world: ProviderWorldHandle;
beforeAll(async () => { world = await startProviderWorld({ seed: 1234, now: WORLD_NOW, newsHistoryDays: 30 }); });
afterAll(async () => { await world.close(); });

const sources = (env: Record<string, string>, logger = recordingLogger()) =>
  createEnrichmentSources(directConfig(world, env), logger, { retry: { ...FAST_RETRY, maxAttempts: 1 } });

const companyWithRecentNews = () => world.world.companies.find((c) => companyNews(world.world, c).some((a) => WORLD_NOW.getTime() - a.publishedAt.getTime() < 25 * DAY_MS))!;

describe('news within the plan’s history', () => {
  it('asks from the plan’s oldest day and gets the recent articles', async () => {
    const company = companyWithRecentNews();
    const lookup = await sources({ NEWS_HISTORY_DAYS: '30' }).findCompanyNews({ name: company.name, domain: company.domain }, WORLD_NOW);
    expect(lookup.value!.length).toBeGreaterThan(0);
    const oldest = new Date(WORLD_NOW.getTime() - 30 * DAY_MS).toISOString().slice(0, 10);
    expect(lookup.value!.every((a) => a.publishedOn >= oldest)).toBe(true);
  });

  it('a refused `from` makes the part unavailable this run, logged at error level, not an empty list', async () => {
    const company = companyWithRecentNews();
    const logger = recordingLogger();
    const error = await sources({ NEWS_HISTORY_DAYS: '365' }, logger).findCompanyNews({ name: company.name, domain: company.domain }, WORLD_NOW)
      .then(() => null, (e: unknown) => e as Error);
    expect(error?.name).toBe('ProviderUnavailable');
    expect(logger.entries.find((e) => e.level === 'error')?.details).toMatchObject({ api: 'news.everything', kind: 'rejected', status: 426 });
  });

  it('keeps the spec’s 12-month ceiling whatever the plan allows', () => {
    expect(newsWindowStart(WORLD_NOW, 30).toISOString().slice(0, 10)).toBe('2026-05-16');
    expect(newsWindowStart(WORLD_NOW, 3650).toISOString().slice(0, 10)).toBe('2025-06-15');
  });
});

describe('a reply without its documented collection', () => {
  it('is logged at error level with provider and endpoint, and the part is unavailable, not empty', async () => {
    const logger = recordingLogger();
    const broken = createEnrichmentSources(directConfig(world), logger, {
      retry: FAST_RETRY,
      fetch: async () => new Response(JSON.stringify({ status: 'ok', totalResults: 3 }), { status: 200, headers: { 'content-type': 'application/json' } }),
    });
    const error = await broken.findCompanyNews({ name: 'Acme', domain: 'acme.io' }, WORLD_NOW).then(() => null, (e: unknown) => e as Error);
    expect(error?.name).toBe('ProviderUnavailable');
    expect(logger.entries.filter((e) => e.level === 'error').map((e) => e.details)).toEqual([expect.objectContaining({ provider: 'news', api: 'news.everything', part: 'company news' })]);
  });
});
