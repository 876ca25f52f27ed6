import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiClient } from '../../integrations/ai/ai-client.ts';
import { createAiConfig } from '../../integrations/ai/ai-config.ts';
import { createPageFetcher } from '../../integrations/web/page-fetcher.ts';
import { isPrivateAddress } from '../../integrations/web/private-address.ts';
import { extractProductContext } from '../../integrations/ai/product-context.ts';
import { startModelSandbox, type ModelSandbox } from '../../sandbox/model/model-sandbox.ts';
import { silentLogger } from './ai-fixtures.ts';

let sandbox: ModelSandbox;
beforeAll(async () => {
  sandbox = await startModelSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

// The sandbox pages live on loopback, which only a development setting may reach.
const localFetch = () => createPageFetcher({ policy: { allowedPrivateHosts: new Set(['127.0.0.1']) } });
const deps = (env: Record<string, string> = {}) => ({
  fetchPage: localFetch(),
  ai: createAiClient(createAiConfig({ AI_SANDBOX_URL: sandbox.url, AI_MAX_RETRIES: '0', OPENAI_FAST_MODEL: 'gpt-4.1-nano', ...env }), silentLogger),
  logger: silentLogger,
});

describe('product context extraction', () => {
  it.each([
    ['pipeline-pilot', 'PipelinePilot', 'Automatic lead scoring', 'B2B sales teams of 5 to 200 reps'],
    ['ledgerly', 'Ledgerly', 'Bank reconciliation', 'Accounting firms'],
    ['fleetwise', 'Fleetwise', 'Live vehicle tracking', 'Last-mile delivery companies'],
  ])('reads the %s page into a product context with one fast-model call', async (slug, name, feature, customer) => {
    const url = `${sandbox.origin}/products/${slug}/`;
    const context = await extractProductContext(url, deps());

    expect(context.name).toBe(name);
    expect(context.description.length).toBeGreaterThan(30);
    expect(context.keyFeatures).toHaveLength(4);
    expect(context.keyFeatures).toContain(feature);
    expect(context.targetCustomers).toContain(customer);
    expect(context.productUrl).toBe(url);
    const [request] = sandbox.requests();
    expect(sandbox.calls()).toBe(1);
    expect(request).toMatchObject({ schemaName: 'product_context', model: 'gpt-4.1-nano' });
    // Page text goes to the model as data, without markup or scripts.
    expect(request.messages[1].content).toContain('<untrusted_data>');
    expect(request.messages[1].content).not.toContain('window.analytics');
  });

  it('follows up to three redirects and reports the final URL', async () => {
    const context = await extractProductContext(`${sandbox.origin}/hops/3/ledgerly`, deps());
    expect(context.productUrl).toBe(`${sandbox.origin}/products/ledgerly/`);
  });

  it('rejects with AiUnavailable when the model is down', async () => {
    sandbox.setFaults({ mode: 'serverError' });
    const failure = await extractProductContext(`${sandbox.origin}/products/ledgerly/`, deps()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'server_error' });
  });
});

describe('guarded page fetch', () => {
  it.each([`http://127.0.0.1:PORT/products/ledgerly/`, `http://localhost:PORT/products/ledgerly/`, `http://[::1]:PORT/products/ledgerly/`])(
    'refuses the loopback URL %s unless private networks are allowed',
    async (template) => {
      const url = template.replace('PORT', String(sandbox.port));
      const failure = await createPageFetcher()(url).catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'PageFetchRefused', reason: 'private_address' });
    },
  );

  it('does not call the model when the page is refused', async () => {
    const failure = await extractProductContext(`${sandbox.origin}/products/ledgerly/`, { ...deps(), fetchPage: createPageFetcher() }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'PageFetchRefused', reason: 'private_address' });
    expect(sandbox.calls()).toBe(0);
  });

  it('refuses a redirect chain longer than three hops', async () => {
    const failure = await localFetch()(`${sandbox.origin}/hops/4/ledgerly`).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'PageFetchRefused', reason: 'too_many_redirects' });
  });

  it('refuses a page over 1 MiB', async () => {
    const failure = await localFetch()(`${sandbox.origin}/products/huge/`).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'PageFetchRefused', reason: 'too_large' });
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/', 'gopher://example.com/'])('refuses the scheme of %s', async (url) => {
    const failure = await localFetch()(url).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'PageFetchRefused', reason: 'unsupported_scheme' });
  });

  it('reports a missing page and a dead host as fetch failures', async () => {
    expect(await localFetch()(`${sandbox.origin}/products/no-such-product/`).catch((error: unknown) => error)).toMatchObject({ name: 'PageFetchFailed', reason: 'http_status' });
    expect(await localFetch()('http://127.0.0.1:1/').catch((error: unknown) => error)).toMatchObject({ name: 'PageFetchFailed', reason: 'unreachable' });
  });

  it('classifies addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', 'not-an-ip']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, false]);
    }
  });
});
