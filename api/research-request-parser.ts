import { AppError } from '../domain/errors.ts';
import { isValidEmail, normaliseEmail } from '../domain/email-address.ts';
import { HINT_FIELDS, MAX_HINT_LENGTH, type ResearchRequest } from '../domain/research-request.ts';

// Control characters (CR/LF among them) have no place in names or URLs and
// could smuggle headers or log lines into systems the hints travel to.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Checks 5–6 of DECISIONS.md plus hint types; returns the normalised request. */
export function parseResearchRequest(body: unknown): ResearchRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('missing_email', 'Send a JSON object with an "email" field.');
  }
  const fields = body as Record<string, unknown>;
  if (typeof fields.email !== 'string') throw new AppError('missing_email', 'The "email" field is required and must be a string.');
  for (const field of HINT_FIELDS) {
    const value = fields[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new AppError('invalid_request', `"${field}" must be a string.`, { field });
    if (value.length > MAX_HINT_LENGTH || CONTROL_CHARACTERS.test(value)) {
      throw new AppError('invalid_request', `"${field}" must be at most ${MAX_HINT_LENGTH} characters without control characters.`, { field });
    }
  }
  const email = normaliseEmail(fields.email);
  if (!email) throw new AppError('missing_email', 'The "email" field is empty.');
  if (!isValidEmail(email)) throw new AppError('invalid_email_format', 'The "email" field is not a valid e-mail address.');

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

function stripUndefined(request: ResearchRequest): ResearchRequest {
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as unknown as ResearchRequest;
}
