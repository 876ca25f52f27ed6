import { domainToASCII } from 'node:url';
import { AppError } from '../domain/errors.ts';
import { isValidEmail, normaliseEmail } from '../domain/research/email-address.ts';
import { HINT_FIELDS, MAX_HINT_LENGTH, type ResearchRequest } from '../domain/research/request.ts';

// Control characters (CR/LF among them, the C1 set with NEL, and the Unicode
// line and paragraph separators) have no place in names or URLs and could
// smuggle headers or log lines into systems the hints travel to.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Checks 5–6 of docs/decisions.md#the-order-of-checks plus hint types; returns the normalised request. */
export function parseResearchRequest(body: unknown): ResearchRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('missing_email', 'Send a JSON object with an "email" field, with Content-Type: application/json.');
  }
  const fields = body as Record<string, unknown>;
  if (typeof fields.email !== 'string') throw new AppError('missing_email', 'The "email" field is required and must be a string.');
  for (const field of HINT_FIELDS) {
    const value = fields[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new AppError('invalid_request', `"${field}" must be a string.`, { field });
    // A lone surrogate (`"\ud800"` in JSON) is no text: PostgreSQL and most libraries refuse it.
    if (value.length > MAX_HINT_LENGTH || CONTROL_CHARACTERS.test(value) || !value.isWellFormed()) {
      throw new AppError('invalid_request', `"${field}" must be at most ${MAX_HINT_LENGTH} characters without control characters.`, { field });
    }
  }
  const email = asciiDomain(normaliseEmail(fields.email));
  if (!email) throw new AppError('missing_email', 'The "email" field is empty.');
  if (!email.isWellFormed() || !isValidEmail(email)) throw new AppError('invalid_email_format', 'The "email" field is not a valid e-mail address.');

  const hint = (field: string) => {
    const value = fields[field];
    return typeof value === 'string' && value.trim() ? value.trim() : undefined;
  };
  return stripUndefined({
    email,
    prospectName: hint('prospect_name'),
    companyName: hint('company_name'),
    socialUrl: hint('social_url'),
    companySocialUrl: hint('company_social_url'),
  });
}

/**
 * An internationalised domain (`anna@müller.de`) in its ASCII form
 * (`anna@xn--mller-kva.de`), so that both spellings are one prospect in the
 * cache and the providers get the form DNS knows. The local part must be ASCII
 * anyway (docs/decisions.md#e-mail-addresses: common mailbox practice); an unconvertible domain is left
 * for the syntax check to refuse.
 */
function asciiDomain(email: string): string {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1);
  if (at < 0 || /^[\x00-\x7f]*$/.test(domain) || !domain.isWellFormed()) return email;
  const ascii = domainToASCII(domain);
  return ascii ? `${email.slice(0, at + 1)}${ascii}` : email;
}

function stripUndefined(request: ResearchRequest): ResearchRequest {
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as unknown as ResearchRequest;
}
