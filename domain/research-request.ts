import { z } from 'zod';

/** Request body of `POST /research` (spec §4.1). Unknown fields are ignored (DECISIONS.md). */
export const ZResearchRequestBody = z.object({
  email: z.string().describe("Prospect's work e-mail address"),
  prospect_name: z.string().optional().describe('Full name, improves match accuracy'),
  company_name: z.string().optional().describe('Company name, improves match accuracy'),
  social_url: z.string().optional().describe("Prospect's profile URL"),
  company_social_url: z.string().optional().describe('Company page URL, overrides the automatically detected one'),
});

export const HINT_FIELDS = ['prospect_name', 'company_name', 'social_url', 'company_social_url'] as const;
export type HintField = (typeof HINT_FIELDS)[number];
export const MAX_HINT_LENGTH = 500;

/** The normalised request as the pipeline sees it. */
export interface ResearchRequest {
  email: string;
  prospectName?: string;
  companyName?: string;
  socialUrl?: string;
  companySocialUrl?: string;
}
