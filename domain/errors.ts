// Every machine-readable error code of the API and its HTTP status, in one table
// (spec §7.3 and DECISIONS.md). Handlers throw `AppError`; one middleware renders it.

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
  unsupported_media_type: 415,
  credits_exhausted: 429,
  trial_limit_reached: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

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
