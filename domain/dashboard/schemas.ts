// Schemas of the dashboard's JSON API, shared by the server (which validates
// with them) and the browser (whose forms validate with the same rules). This
// module is bundled into the browser: zod and domain constants only.
import { z } from 'zod';
import { LANGUAGES } from '../research/languages.ts';
import { PLAN_NAMES } from '../billing/plans.ts';
import { RESEARCH_JOB_STATUSES } from '../research/job-status.ts';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
export const PRODUCT_NAME_MAX = 120;
export const PRODUCT_DESCRIPTION_MAX = 2_000;
export const PRODUCT_LIST_ITEM_MAX = 200;
export const PRODUCT_LIST_MAX_ITEMS = 10;
export const JOBS_PAGE_SIZE = 25;

const zTrimmed = (label: string, max: number) =>
  z.string({ error: `${label} is required.` }).trim().min(1, `${label} is required.`).max(max, `${label} is at most ${max} characters.`);

const zList = (label: string) =>
  z
    .array(z.string().trim().max(PRODUCT_LIST_ITEM_MAX, `Each entry is at most ${PRODUCT_LIST_ITEM_MAX} characters.`))
    .transform((items) => items.filter((item) => item.length > 0))
    .pipe(z.array(z.string()).min(1, `Add at least one ${label}.`).max(PRODUCT_LIST_MAX_ITEMS, `At most ${PRODUCT_LIST_MAX_ITEMS} ${label}s.`));

export const ZProductUrl = z
  .string({ error: 'Product URL is required.' })
  .trim()
  .min(1, 'Product URL is required.')
  .max(2_000, 'Product URL is at most 2000 characters.')
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'Enter a web address starting with http:// or https://.');

/** A product context as the dashboard edits it (docs/api.md#authentication, docs/decisions.md#the-dashboard). */
export const ZProductContextInput = z.strictObject({
  name: zTrimmed('Product name', PRODUCT_NAME_MAX),
  description: zTrimmed('Description', PRODUCT_DESCRIPTION_MAX),
  keyFeatures: zList('key feature'),
  targetCustomers: zList('target customer'),
  productUrl: z.union([ZProductUrl, z.literal('').transform(() => null), z.null()]).default(null),
});
export type TProductContextInput = z.input<typeof ZProductContextInput>;
export type TProductContext = z.output<typeof ZProductContextInput>;

export const ZExtractRequest = z.strictObject({ productUrl: ZProductUrl });

export const ZPreferences = z.strictObject({
  language: z.enum(LANGUAGES, { error: 'Choose one of the eight languages.' }),
  /** Credit usage alerts by e-mail at 75 % and 95 % (docs/mail.md#usage-alerts); on by default. */
  usageAlerts: z.boolean({ error: 'Usage alerts are on or off.' }),
});
export type TPreferences = z.infer<typeof ZPreferences>;

export const ZJobFilter = z.strictObject({
  status: z.enum(RESEARCH_JOB_STATUSES).optional(),
  keyId: z.coerce.number().int().positive().optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});
export type TJobFilter = z.infer<typeof ZJobFilter>;

export const ZSignUp = z.strictObject({
  email: z.email('Enter a valid e-mail address.').trim().toLowerCase(),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
    .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`),
});

export const ZPlanChoice = z.strictObject({
  plan: z.enum(PLAN_NAMES, { error: 'Choose one of the four plans.' }),
});

export const ZAccountDeletion = z.strictObject({
  password: z.string({ error: 'Enter your password to confirm.' }).min(1, 'Enter your password to confirm.').max(PASSWORD_MAX_LENGTH),
});
