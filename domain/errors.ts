// Every machine-readable error code of the API and its HTTP status, in one table
// (docs/api.md#errors and docs/decisions.md#requests-and-errors). Handlers throw `AppError`; one middleware renders it.

export const ERROR_STATUS = {
  missing_api_key: 401,
  invalid_key: 401,
  missing_key_id: 400,
  api_key_has_no_product: 400,
  missing_email: 400,
  invalid_email_format: 400,
  invalid_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  payload_too_large: 413,
  credits_exhausted: 429,
  trial_limit_reached: 429,
  internal_error: 500,
  // The dashboard's JSON API (/app/api/*) shares this model.
  unauthenticated: 401,
  forbidden_origin: 403,
  // The MCP endpoint (api/mcp/route.ts): a Host that is not this server's (DNS rebinding).
  forbidden_host: 403,
  email_not_verified: 403,
  key_limit_reached: 409,
  product_page_unreadable: 422,
  too_many_attempts: 429,
  // Billing (services/billing/billing.ts).
  plan_change_not_allowed: 409,
  billing_not_configured: 503,
  // The CRM integration (api/dashboard/routes/crm.ts).
  crm_plan_required: 403,
  crm_not_connected: 409,
  crm_already_connected: 409,
  crm_not_configured: 503,
  crm_unavailable: 503,
  // Lists (api/dashboard/routes/lists.ts): nothing is charged on any of these.
  list_file_invalid: 400,
  list_no_email_column: 400,
  list_nothing_to_run: 400,
  api_key_required: 400,
  list_not_draft: 409,
  list_not_running: 409,
  list_credits_changed: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * What a 429 says besides `used` and `limit` (docs/api.md#errors): the Free plan's trial
 * is used up until an upgrade; a paid plan waits for its next cycle or upgrades.
 */
export const CREDIT_REFUSAL_MESSAGES = {
  trial_limit_reached:
    "The Free plan's 3 credits are used. Upgrade to a paid plan on the dashboard's Billing page (/app/billing) to keep researching.",
  credits_exhausted:
    'No credits left in this billing cycle. Credits reset at the start of the next cycle, or upgrade on the dashboard\'s Billing page (/app/billing).',
} as const;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra fields of the JSON body, e.g. `used` and `limit` on credit errors. */
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, details: Record<string, unknown> = {}) {
    super(message ?? code);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
  }
}
