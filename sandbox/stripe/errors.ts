// Stripe's error body: `{ error: { type, code, param, message, doc_url } }` with
// 400 for invalid requests, 401 for a bad key, 402 for a declined card, 404 for
// an unknown object (docs.stripe.com/api/errors, docs.stripe.com/error-codes).

export type StripeErrorType = 'invalid_request_error' | 'card_error' | 'api_error' | 'idempotency_error';

export class StripeApiError extends Error {
  readonly status: number;
  readonly type: StripeErrorType;
  readonly code: string | undefined;
  readonly param: string | undefined;

  constructor(status: number, type: StripeErrorType, message: string, options: { code?: string; param?: string } = {}) {
    super(message);
    this.status = status;
    this.type = type;
    this.code = options.code;
    this.param = options.param;
  }

  body() {
    return {
      error: {
        type: this.type,
        ...(this.code ? { code: this.code, doc_url: `https://stripe.com/docs/error-codes/${this.code.replaceAll('_', '-')}` } : {}),
        ...(this.param ? { param: this.param } : {}),
        message: this.message,
      },
    };
  }
}

export const missingParam = (param: string) =>
  new StripeApiError(400, 'invalid_request_error', `Missing required param: ${param}.`, { code: 'parameter_missing', param });

export const invalidParam = (param: string, message: string) => new StripeApiError(400, 'invalid_request_error', message, { code: 'parameter_invalid_string', param });

export const noSuch = (kind: string, id: string, param = 'id') =>
  new StripeApiError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param });

export const invalidEnum = (param: string, value: string, allowed: readonly string[]) =>
  new StripeApiError(400, 'invalid_request_error', `Invalid ${param}: must be one of ${allowed.join(', ')}`, { code: 'parameter_invalid_string', param: `${param}` });
