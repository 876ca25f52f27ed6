import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDomain } from 'tldts';

// Maintained public lists decide what is free-mail, disposable or a role
// mailbox. freemail's "free" check also counts its disposable list, so the
// two are told apart explicitly. The two short lists below are ours: the role
// list's words that are also people's first names, and the words that may
// follow a role name as its department or region.
const require = createRequire(import.meta.url);
// freemail's own lists, as sets: its isFree/isDisposable scan ~92,000 entries
// with indexOf on every call, ~5 ms of CPU per research job.
const freemailData = join(dirname(require.resolve('freemail/package.json')), 'data');
const freemailList = (file: string) => readFileSync(join(freemailData, file), 'utf8').split('\n').map((line) => line.trim()).filter(Boolean);
const FREEMAIL_DISPOSABLE = new Set(freemailList('disposable.txt'));
const FREEMAIL_FREE = new Set(freemailList('free.txt'));
const DISPOSABLE_DOMAINS = new Set<string>(require('disposable-email-domains') as string[]);
/**
 * The role list's words that are also first names (`sem`, Dutch; `per`,
 * Scandinavian; `dev`, Indian; `alexa`, German and English …): a mailbox of a
 * single first name is a person's, never a role's. test/providers/role-mailboxes.test.ts
 * checks every first name of every locale of @faker-js/faker against the rule,
 * so a role-list update that adds a first name fails there.
 */
const FIRST_NAMES_IN_ROLE_LIST = new Set(['alexa', 'alla', 'alpha', 'arin', 'dev', 'france', 'gardner', 'general', 'job', 'paris', 'per', 'sem', 'server', 'sydney']);
const ROLE_MAILBOXES = new Set<string>((require('role-based-email-addresses') as string[]).filter((name) => !FIRST_NAMES_IN_ROLE_LIST.has(name)));
/** Department and region words a role name may carry (`sales-emea`, `support.team`, `hr-dept`); two-letter country codes count too (`info.de`). */
const DEPARTMENT_SUFFIXES = new Set(['team', 'dept', 'department', 'desk', 'group', 'emea', 'apac', 'amer', 'americas', 'dach', 'nordics', 'benelux', 'mena', 'anz', 'intl']);
const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

export interface EmailClassification {
  /** Everything after the `@`, lower-cased. */
  domain: string;
  /** e.g. `acme.co.uk` for `mail.acme.co.uk`; null when the suffix is unknown. */
  registrableDomain: string | null;
  isFreeMail: boolean;
  isRoleBased: boolean;
  isDisposable: boolean;
  /** The domain to look the company up by: null for free-mail and disposable addresses. */
  companyDomain: string | null;
}

/** Classifies an already normalised (trimmed, lower-cased, valid) address. */
export function classifyEmail(email: string): EmailClassification {
  const at = email.lastIndexOf('@');
  const localPart = email.slice(0, at).toLowerCase();
  const domain = email.slice(at + 1).toLowerCase();
  const registrableDomain = getDomain(domain, { allowPrivateDomains: false }) ?? null;
  // freemail looks up the registrable domain with the private suffixes counted (as tldjs does), none when there is none.
  const freemailKey = getDomain(domain, { allowPrivateDomains: true });
  const listed = (list: Set<string>) => freemailKey !== null && list.has(freemailKey);
  const isDisposable = listed(FREEMAIL_DISPOSABLE)
    || DISPOSABLE_DOMAINS.has(domain)
    || (registrableDomain !== null && DISPOSABLE_DOMAINS.has(registrableDomain));
  const isFreeMail = !isDisposable && listed(FREEMAIL_FREE);
  return {
    domain,
    registrableDomain,
    isFreeMail,
    isRoleBased: isRoleMailbox(localPart),
    isDisposable,
    companyDomain: isFreeMail || isDisposable ? null : registrableDomain,
  };
}

/**
 * A role mailbox (docs/decisions.md#crm-integration): the whole local part is a
 * shared mailbox's name (`info`, `sales`, `customer.service`), with digits or
 * a department or region after it at most (`info2`, `sales-emea`,
 * `support.team`, `sales+eu`). A local part that merely begins with such a
 * name is a person's: `sem.dejong`, `per.olsen`, `sales.jan`.
 */
export function isRoleMailbox(localPart: string): boolean {
  // Sub-addressing: `sales+eu` is the sales mailbox.
  const mailbox = localPart.toLowerCase().split('+')[0]!;
  // The list holds names with separators too (`customer.service`, `no-reply`): try each prefix that ends at a separator.
  for (let end = mailbox.length; end > 0; end = lastSeparatorBefore(mailbox, end)) {
    const name = mailbox.slice(0, end);
    if (!ROLE_MAILBOXES.has(name) && !ROLE_MAILBOXES.has(name.replace(/\d+$/, ''))) continue;
    const rest = mailbox.slice(end + 1);
    if (rest === '' || rest.split(/[._-]/).every(isDepartmentSuffix)) return true;
  }
  return false;
}

function lastSeparatorBefore(text: string, end: number): number {
  for (let index = end - 1; index > 0; index--) if ('._-'.includes(text[index]!)) return index;
  return 0;
}

function isDepartmentSuffix(word: string): boolean {
  if (/^\d+$/.test(word)) return true;
  const name = word.replace(/\d+$/, '');
  return ROLE_MAILBOXES.has(name) || DEPARTMENT_SUFFIXES.has(name) || (/^[a-z]{2}$/.test(name) && REGION_NAMES.of(name.toUpperCase()) !== undefined);
}
