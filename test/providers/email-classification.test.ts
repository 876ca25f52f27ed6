import { describe, expect, it } from 'vitest';
import { classifyEmail } from '../../domain/research/email-classification.ts';

describe('classifyEmail', () => {
  it('takes the registrable domain of a company address', () => {
    expect(classifyEmail('jan.kowalski@mail.acme.co.uk')).toEqual({
      domain: 'mail.acme.co.uk', registrableDomain: 'acme.co.uk',
      isFreeMail: false, isRoleBased: false, isDisposable: false, companyDomain: 'acme.co.uk',
    });
  });

  it('recognises free-mail providers and gives no company domain', () => {
    for (const email of ['john@gmail.com', 'anna@outlook.com', 'ola@wp.pl', 'max@gmx.de']) {
      expect(classifyEmail(email), email).toMatchObject({ isFreeMail: true, isDisposable: false, companyDomain: null });
    }
  });

  it('recognises disposable addresses', () => {
    for (const email of ['x@mailinator.com', 'y@yopmail.com']) {
      expect(classifyEmail(email), email).toMatchObject({ isDisposable: true, isFreeMail: false, companyDomain: null });
    }
  });

  it('recognises role mailboxes, also with tags and suffixes', () => {
    expect(classifyEmail('info@acme.io').isRoleBased).toBe(true);
    expect(classifyEmail('sales+eu@acme.io').isRoleBased).toBe(true);
    expect(classifyEmail('support.team@acme.io').isRoleBased).toBe(true);
    expect(classifyEmail('john.smith@acme.io').isRoleBased).toBe(false);
    expect(classifyEmail('sales@acme.io').companyDomain).toBe('acme.io');
  });
});
