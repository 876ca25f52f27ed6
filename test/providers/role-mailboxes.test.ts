// Which mailbox is a role's (docs/decisions.md#crm-integration): the whole
// local part a shared mailbox's name, with digits or a department or region
// after it at most; never a person's first name. One rule for CRM runs,
// lists and the API's classification (domain/research/email-classification.ts).
import { allLocales } from '@faker-js/faker';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../domain/research/languages.ts';
import { classifyEmail, isRoleMailbox } from '../../domain/research/email-classification.ts';
import { buildListPreview, parseListText } from '../../domain/lists/csv.ts';
import { prospectReason } from '../../domain/research/prospect-reason.ts';

/** A name as it appears in an address: lower case, without accents, spaces or apostrophes. */
const asLocalPart = (name: string) => name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[\s'’]/g, '');
const isAscii = (text: string) => /^[a-z0-9._-]+$/.test(text);

function namesOf(locale: (typeof allLocales)[keyof typeof allLocales], kind: 'first_name' | 'last_name'): string[] {
  const names = locale.person?.[kind] as { generic?: string[]; female?: string[]; male?: string[] } | undefined;
  return [...(names?.generic ?? []), ...(names?.female ?? []), ...(names?.male ?? [])].map(asLocalPart).filter(isAscii);
}

/** faker's locales of the eight output languages' countries (en_GB, de_AT, fr_BE, pt_BR, nl_BE, …). */
const localesOfOurLanguages = Object.entries(allLocales).filter(([code]) => (LANGUAGES as readonly string[]).includes(code.split('_')[0]!));

describe('a role mailbox', () => {
  it('is a shared mailbox name as the whole local part, in any of our languages', () => {
    const roles = [
      'info', 'sales', 'office', 'support', 'contact', 'hello', 'admin', 'billing', 'marketing', 'jobs', 'careers', 'press', 'noreply', 'no-reply', 'customer.service', 'hr',
      'kontakt', 'verkauf', 'buchhaltung', 'biuro', 'sekretariat', 'contacto', 'ventas', 'vendas', 'contato', 'comercial', 'amministrazione', 'assistenza',
      'secretariaat', 'administratie', 'recrutement', 'comptabilite', 'rrhh',
    ];
    for (const role of roles) expect(classifyEmail(`${role}@lumengoods.com`).isRoleBased, role).toBe(true);
  });

  it('may carry digits, a department or region suffix, or a sub-address', () => {
    for (const local of ['info2', 'sales1', 'sales-emea', 'sales_dach', 'support.team', 'hr-dept', 'info.de', 'sales-uk', 'support24', 'sales+eu', 'info-2', 'customer.service.emea', 'sales.support']) {
      expect(isRoleMailbox(local), local).toBe(true);
    }
  });

  it('is never a local part that merely begins with a role word', () => {
    for (const local of ['sem.dejong', 'per.olsen', 'dev.patel', 'sales.jan', 'info.marta', 'support.kowalski', 'office.manager.anna', 'hello.world.tour', 'adminjan', 'salesforce.bob']) {
      expect(isRoleMailbox(local), local).toBe(false);
    }
  });

  it('is never a first name, alone or with a last name: every first name of faker\'s locales of our eight languages\' countries', () => {
    expect(localesOfOurLanguages.map(([code]) => code)).toEqual(expect.arrayContaining(['en_GB', 'en_US', 'pl', 'de', 'fr', 'es', 'it', 'pt_PT', 'pt_BR', 'nl']));
    const roleLooking: string[] = [];
    let checked = 0;
    for (const [, locale] of localesOfOurLanguages) {
      const lastNames = namesOf(locale, 'last_name');
      for (const [index, first] of namesOf(locale, 'first_name').entries()) {
        const last = lastNames[index % lastNames.length] ?? 'smith';
        for (const local of [first, `${first}.${last}`, `${first}-${last}`, `${first}_${last}`, `${first}${last}`]) {
          checked++;
          if (isRoleMailbox(local)) roleLooking.push(local);
        }
      }
    }
    expect(checked).toBeGreaterThan(20_000);
    expect(roleLooking).toEqual([]);
  });

  it('is never a first name of any other locale either (Per, Sem, Dev, Alexa …)', () => {
    const roleLooking = Object.values(allLocales).flatMap((locale) => namesOf(locale, 'first_name')).filter((first) => isRoleMailbox(first));
    expect([...new Set(roleLooking)]).toEqual([]);
    for (const first of ['sem', 'per', 'dev', 'alexa']) expect(classifyEmail(`${first}@lumengoods.com`).isRoleBased, first).toBe(false);
  });

  it('is the same rule for lists and for the API\'s reason', () => {
    const parsed = parseListText('E-mail\nsem.dejong@lumengoods.com\nsales-emea@lumengoods.com\nper.olsen@lumengoods.com\n');
    if (!parsed.ok) throw new Error(parsed.error.message);
    const preview = buildListPreview(parsed.list, { email: 0 }, { skipFlagged: true, creditsLeft: 10 });
    expect(preview.rows.map((row) => [row.email, row.verdict])).toEqual([
      ['sem.dejong@lumengoods.com', 'valid'], ['sales-emea@lumengoods.com', 'role_based'], ['per.olsen@lumengoods.com', 'valid'],
    ]);
    const address = classifyEmail('sem.dejong@lumengoods.com');
    expect(prospectReason(address, { isFound: false, wasAnswered: true })).not.toBe('role_address');
    expect(prospectReason(classifyEmail('info@lumengoods.com'), { isFound: false, wasAnswered: true })).toBe('role_address');
  });
});
