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
