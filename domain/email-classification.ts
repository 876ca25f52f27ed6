import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDomain } from 'tldts';

// Maintained public lists decide what is free-mail, disposable or a role
// mailbox; nothing here is a hand-kept list. freemail's "free" check also
// counts its disposable list, so the two are told apart explicitly.
const require = createRequire(import.meta.url);
// freemail's own lists, as sets: its isFree/isDisposable scan ~92,000 entries
// with indexOf on every call, ~5 ms of CPU per research job (issue 21).
const freemailData = join(dirname(require.resolve('freemail/package.json')), 'data');
const freemailList = (file: string) => readFileSync(join(freemailData, file), 'utf8').split('\n').map((line) => line.trim()).filter(Boolean);
const FREEMAIL_DISPOSABLE = new Set(freemailList('disposable.txt'));
const FREEMAIL_FREE = new Set(freemailList('free.txt'));
const DISPOSABLE_DOMAINS = new Set<string>(require('disposable-email-domains') as string[]);
const ROLE_MAILBOXES = new Set<string>(require('role-based-email-addresses') as string[]);

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
  // `sales+eu@` and `sales.team@` are still the sales mailbox.
  const mailbox = localPart.split('+')[0];
  const isRoleBased = ROLE_MAILBOXES.has(mailbox) || ROLE_MAILBOXES.has(mailbox.split(/[._-]/)[0]);
  return {
    domain,
    registrableDomain,
    isFreeMail,
    isRoleBased,
    isDisposable,
    companyDomain: isFreeMail || isDisposable ? null : registrableDomain,
  };
}
