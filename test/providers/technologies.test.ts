import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPageFetcher } from '../../integrations/web/page-fetcher.ts';
import { PageFetchFailed, PageFetchRefused } from '../../integrations/web/page-fetch-errors.ts';
import { isPrivateAddress } from '../../integrations/web/private-address.ts';
import { siteAddress } from '../../integrations/web/site-host-map.ts';
import { createProviderConfig } from '../../integrations/providers/config.ts';
import { detectTechnologies } from '../../integrations/providers/technologies.ts';
import { createEnrichmentSources } from '../../integrations/providers/waterfall-sources.ts';
import { sitePage } from '../../sandbox/provider-world/site-pages.ts';
import type { ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { directConfig, recordingLogger, startWorld } from './provider-fixture.ts';

let world: ProviderWorldHandle;
beforeAll(async () => { world = await startWorld(); });
afterAll(async () => { await world.close(); });

const allowed = { timeoutMs: 3_000, policy: { allowedPrivateHosts: new Set(['127.0.0.1']) } };

// The same guarded fetcher serves product pages; technology detection reads any content type and cuts oversized pages.
const fetchPublicPage = (url: string, options: { timeoutMs: number; policy?: typeof allowed.policy; maxBytes?: number }) =>
  createPageFetcher({ ...options, oversize: 'truncate', requireHtml: false })(url);

async function refusal(promise: Promise<unknown>): Promise<PageFetchRefused | PageFetchFailed> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error instanceof PageFetchRefused || error instanceof PageFetchFailed).toBe(true);
  return error as PageFetchRefused | PageFetchFailed;
}

describe('technology detection', () => {
  it('finds every technology a sandbox site was built with', async () => {
    for (const company of world.world.companies.slice(0, 6)) {
      const expected = sitePage(world.world.seed, company).technologies;
      const found = await detectTechnologies(`${world.url}/sites/${company.domain}/`, allowed);
      expect(found).toEqual(expect.arrayContaining(expected));
      expect(found).toEqual([...new Set(found)].sort());
    }
  });

  it('reads the company’s own website through the configured site stand-in (a host map, not rewritten data)', async () => {
    const company = world.world.companies[0];
    const env = { ALLOW_PRIVATE_HOSTS: '127.0.0.1', WEBSITE_STAND_IN_URL: `${world.url}/sites` };
    const sources = createEnrichmentSources(directConfig(world, env), recordingLogger());
    world.resetCalls();
    const lookup = await sources.detectTechnologies(`https://www.${company.domain}`);
    expect(lookup.value).toEqual(expect.arrayContaining(sitePage(world.world.seed, company).technologies));
    expect(lookup).toMatchObject({ apisCalled: ['website.home_page'], source: 'sandbox' });
    expect(world.calls('site')).toBeGreaterThan(0);
  });

  it('maps a website to the stand-in only when one is configured', () => {
    expect(siteAddress('https://www.acme.io/about?x=1', 'http://127.0.0.1:4010/sites')).toBe('http://127.0.0.1:4010/sites/acme.io/about?x=1');
    expect(siteAddress('acme.io', 'http://127.0.0.1:4010/sites/')).toBe('http://127.0.0.1:4010/sites/acme.io/');
    expect(siteAddress('acme.io', null)).toBe('https://acme.io');
    expect(siteAddress('https://acme.io/', null)).toBe('https://acme.io/');
    // The sandbox's provider config points websites at its stand-in by itself.
    expect(createProviderConfig({ PROVIDER_SANDBOX_URL: 'http://127.0.0.1:4010' }).websiteStandInUrl).toBe('http://127.0.0.1:4010/sites');
    expect(createProviderConfig({}).websiteStandInUrl).toBeNull();
  });

  it('refuses loopback, private and link-local targets unless allowed', async () => {
    const strict = { timeoutMs: 2_000 };
    const site = `/sites/${world.world.companies[0].domain}/`;
    expect((await refusal(fetchPublicPage(`${world.url}${site}`, strict))).reason).toBe('private_address');
    expect((await refusal(fetchPublicPage(`http://localhost:${world.port}${site}`, strict))).reason).toBe('private_address');
    expect((await refusal(fetchPublicPage(`http://[::1]:${world.port}/`, strict))).reason).toBe('private_address');
    expect((await refusal(fetchPublicPage('http://169.254.169.254/latest/meta-data/', strict))).reason).toBe('private_address');
    expect((await refusal(fetchPublicPage('file:///etc/passwd', strict))).reason).toBe('unsupported_scheme');
    const sources = createEnrichmentSources(directConfig(world), recordingLogger());
    expect((await sources.detectTechnologies(`${world.url}${site}`)).value).toBeNull();
    // The site stand-in is another setting, not an allowance: without ALLOW_PRIVATE_HOSTS its loopback pages stay out of reach.
    const standInOnly = createEnrichmentSources(directConfig(world, { WEBSITE_STAND_IN_URL: `${world.url}/sites`, PROVIDER_SANDBOX_URL: world.url }), recordingLogger());
    expect((await standInOnly.detectTechnologies(`https://www.${world.world.companies[0].domain}`)).value).toBeNull();
  });

  it('follows at most 3 redirects', async () => {
    const page = await fetchPublicPage(`${world.url}/sites/_test/redirect/3`, allowed);
    expect(page.url).toBe(`${world.url}/sites/_test/redirect/0`);
    expect((await refusal(fetchPublicPage(`${world.url}/sites/_test/redirect/4`, allowed))).reason).toBe('too_many_redirects');
  });

  it('stops reading an endless page at the size cap and still fingerprints its head', async () => {
    const page = await fetchPublicPage(`${world.url}/sites/_test/huge`, { ...allowed, maxBytes: 256 * 1024 });
    expect(Buffer.byteLength(page.body)).toBeLessThanOrEqual(256 * 1024);
    expect(await detectTechnologies(`${world.url}/sites/_test/huge`, allowed)).toEqual(expect.arrayContaining(['Nginx', 'WordPress']));
  });

  it('tells public from non-public addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111']) expect(isPrivateAddress(address), address).toBe(false);
  });
});
