import { describe, expect, it } from 'vitest';
import { companyFromEmployer } from '../../domain/enrichment/company-from-employer.ts';
import { withoutProspect } from '../../domain/enrichment/decision-makers.ts';
import type { DecisionMakerProfile, PersonProfile } from '../../domain/enrichment/enrichment.ts';
import { prospectReason } from '../../domain/research/prospect-reason.ts';

const leader = (fullName: string, socialUrl: string): DecisionMakerProfile => ({
  fullName, positionTitle: 'VP of Sales', socialUrl, pictureUrl: null, locationText: null, companyName: 'Acme',
});

const person: PersonProfile = {
  fullName: 'Anthony Young', title: 'VP of Engineering', companyName: 'Meridian Estates', companyDomain: 'meridianestates.ai',
  companySocialUrl: 'https://www.linkedin.com/company/meridian-estates', email: 'anthony.young@meridianestates.ai',
  socialUrl: 'https://www.linkedin.com/in/anthony-young-ldxo', photoUrl: null, lastRoleStart: null, location: null,
};

describe('withoutProspect', () => {
  const list = [leader('Anthony Young', 'https://www.linkedin.com/in/anthony-young-ldxo'), leader('Mary Smith', 'https://www.linkedin.com/in/mary-smith')];

  it('leaves the prospect out, whatever the spelling of the profile URL', () => {
    expect(withoutProspect(list, { fullName: 'Anthony Young', socialUrl: 'http://linkedin.com/in/anthony-young-ldxo/' }).map((d) => d.fullName)).toEqual(['Mary Smith']);
  });

  it('matches by name when the prospect has no profile URL, and keeps a namesake with another profile', () => {
    expect(withoutProspect(list, { fullName: ' anthony  young ', socialUrl: null }).map((d) => d.fullName)).toEqual(['Mary Smith']);
    expect(withoutProspect(list, { fullName: 'Anthony Young', socialUrl: 'https://www.linkedin.com/in/another-anthony' })).toHaveLength(2);
    expect(withoutProspect(list, null)).toHaveLength(2);
  });
});

describe('prospectReason', () => {
  const plain = { isFreeMail: false, isDisposable: false, isRoleBased: false };
  it('names the address kind first, then whether the sources answered', () => {
    expect(prospectReason({ ...plain, isFreeMail: true }, { isFound: false, wasAnswered: true })).toBe('free_mail');
    expect(prospectReason({ ...plain, isDisposable: true }, { isFound: false, wasAnswered: true })).toBe('disposable');
    expect(prospectReason({ ...plain, isRoleBased: true }, { isFound: false, wasAnswered: true })).toBe('role_address');
    expect(prospectReason(plain, { isFound: false, wasAnswered: true })).toBe('not_found');
    expect(prospectReason(plain, { isFound: false, wasAnswered: false })).toBe('providers_unavailable');
    expect(prospectReason({ ...plain, isFreeMail: true }, { isFound: true, wasAnswered: true })).toBeNull();
  });
});

describe('companyFromEmployer', () => {
  it('builds the company the person record names', () => {
    expect(companyFromEmployer(person, { domain: 'meridianestates.ai' })).toEqual({
      name: 'Meridian Estates', description: null, socialUrl: 'https://www.linkedin.com/company/meridian-estates',
      website: 'https://meridianestates.ai', domain: 'meridianestates.ai', industry: null, hq: null, revenue: null, employees: null, clientsCount: null,
    });
  });

  it('does not pass another employer off as the company looked up, nor invent one', () => {
    expect(companyFromEmployer(person, { domain: 'acme.io' })).toBeNull();
    expect(companyFromEmployer({ ...person, companyName: null }, { domain: 'meridianestates.ai' })).toBeNull();
    expect(companyFromEmployer(null, { domain: 'meridianestates.ai' })).toBeNull();
  });
});
