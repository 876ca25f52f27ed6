import { z } from 'zod';

export const HINT_FIELDS = ['prospect_name', 'company_name', 'social_url', 'company_social_url'] as const;
export type HintField = (typeof HINT_FIELDS)[number];
export const MAX_HINT_LENGTH = 500;

// Documents what api/research-request-parser.ts accepts; a hint out of these
// bounds is 400 invalid_request, an address that fails the check 400 invalid_email_format.
const hint = (description: string) =>
  z.string().max(MAX_HINT_LENGTH).regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/).nullable().optional().describe(`${description}; no control characters`);

/** Request body of `POST /research` (docs/api.md#post-research). Unknown fields are ignored (docs/decisions.md#error-bodies). */
export const ZResearchRequestBody = z.looseObject({
  email: z.string().meta({ format: 'email' }).describe("Prospect's work e-mail address; trimmed and lower-cased before the check"),
  prospect_name: hint('Full name, improves match accuracy'),
  company_name: hint('Company name, improves match accuracy'),
  social_url: hint("Prospect's profile URL"),
  company_social_url: hint('Company page URL, overrides the automatically detected one'),
});

/** The normalised request as the pipeline sees it. */
export interface ResearchRequest {
  email: string;
  prospectName?: string;
  companyName?: string;
  socialUrl?: string;
  companySocialUrl?: string;
}
