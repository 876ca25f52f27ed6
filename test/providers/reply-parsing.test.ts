import { describe, expect, it } from 'vitest';
import { createApolloClient } from '../../integrations/providers/apollo-client.ts';
import { ProviderError } from '../../integrations/providers/http.ts';
import { createPdlClient } from '../../integrations/providers/pdl-client.ts';
import { canonicalProfileUrl, domainOf, fullDate } from '../../integrations/providers/reply-parsing.ts';
import { httpDeps, recordingLogger } from './provider-fixture.ts';

// Provider replies are untrusted input: these replies are served by a fake
// fetch so that each malformed shape can be pinned down exactly.
const replying = (body: unknown, status = 200) => httpDeps(recordingLogger(), {
  fetch: async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
});
const endpoint = { baseUrl: 'https://provider.test', apiKey: 'k', source: 'test' };

describe('parsing provider replies', () => {
  it('ignores unknown fields and turns wrongly typed fields into null', async () => {
    const pdl = createPdlClient(endpoint, replying({
      status: 200, likelihood: 9, surprise: { nested: true },
      data: { full_name: 'Ada Lovelace', job_title: 42, job_start_date: '2021-03', linkedin_url: 'linkedin.com/in/ada', location_name: ['x'], extra: 1 },
    }));
    expect(await pdl.findPerson({ email: 'ada@engines.co.uk' })).toEqual({
      fullName: 'Ada Lovelace', title: null, companyName: null, companyDomain: null, companySocialUrl: null,
      email: 'ada@engines.co.uk', socialUrl: 'https://www.linkedin.com/in/ada', photoUrl: null, lastRoleStart: '2021-03-01', location: null,
    });
  });

  it('drops malformed list items instead of failing the whole reply', async () => {
    const pdl = createPdlClient(endpoint, replying({
      status: 200, total: 4,
      data: [
        'garbage',
        { full_name: 'no profile', job_title: 'ceo', job_title_levels: ['cxo'] },
        { full_name: 'grace hopper', job_title: 'vp of engineering', job_title_levels: ['vp'], linkedin_url: 'linkedin.com/in/grace' },
        { full_name: 'junior dev', job_title: 'engineer', job_title_levels: ['entry'], linkedin_url: 'linkedin.com/in/junior' },
      ],
    }));
    const found = await pdl.findDecisionMakers({ name: 'Navy', domain: 'navy.mil' });
    expect(found?.map((d) => [d.fullName, d.positionTitle])).toEqual([['grace hopper', 'VP of Engineering']]);
  });

  it('treats a reply of the wrong overall shape as a protocol failure', async () => {
    const pdl = createPdlClient(endpoint, replying(['not', 'an', 'object']));
    const error = await pdl.findPerson({ email: 'a@b.io' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('protocol');
    const apollo = createApolloClient(endpoint, replying({ people: [] }));
    expect(((await apollo.findPerson({ email: 'a@b.io' }).catch((e: unknown) => e)) as ProviderError).kind).toBe('protocol');
  });

  it('treats a 400 as our own malformed request: rejected, not retried', async () => {
    let calls = 0;
    const deps = httpDeps(recordingLogger(), { fetch: async () => { calls++; return new Response('{"status":400}', { status: 400 }); } });
    const error = await createPdlClient(endpoint, deps).findPerson({ email: 'a@b.io' }).catch((e: unknown) => e);
    expect((error as ProviderError).kind).toBe('rejected');
    expect(calls).toBe(1);
  });

  it('normalises URLs, domains and dates', () => {
    expect(canonicalProfileUrl('http://www.linkedin.com/company/acme/')).toBe('https://www.linkedin.com/company/acme');
    expect(domainOf('https://www.shop.acme.co.uk/about')).toBe('acme.co.uk');
    expect(domainOf('http://127.0.0.1:4010/sites/acme.io/')).toBeNull();
    expect(fullDate('2020')).toBe('2020-01-01');
    expect(fullDate('March 2020')).toBeNull();
  });
});
