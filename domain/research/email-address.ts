import { domainToUnicode } from 'node:url';
import validator from 'validator';

/** docs/decisions.md#e-mail-addresses: addresses are trimmed and lower-cased before validation, caching and storage. */
export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

// Common mailbox practice: no quoted local parts, no IP-literal domains, a
// domain with a dot and a real top-level label, and the RFC 5321 length limits.
const EMAIL_OPTIONS = {
  allow_display_name: false,
  allow_ip_domain: false,
  allow_utf8_local_part: false,
  require_tld: true,
  ignore_max_length: false,
} as const;

export function isValidEmail(normalised: string): boolean {
  // Lone surrogates are not text at all (and make the validator throw).
  if (!normalised.isWellFormed() || normalised.length > 254 || normalised.includes('"')) return false;
  return validator.isEmail(normalised, EMAIL_OPTIONS);
}

/**
 * An address as a page shows it: an internationalised domain in its own
 * letters (`maria@xn--mller-gmbh-9db.de` → `maria@müller-gmbh.de`). The ASCII
 * form stays what is stored and researched; a label that is not valid
 * Punycode is shown as it is.
 */
export function shownEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1);
  if (at < 0 || !/(^|\.)xn--/i.test(domain)) return email;
  const unicode = domainToUnicode(domain);
  return unicode === '' ? email : `${email.slice(0, at + 1)}${unicode}`;
}
