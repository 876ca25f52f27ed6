// The stand-in's allowance and the faults tests bend it with. Salesforce
// counts API requests per org over a rolling 24 hours and reports them on
// every REST answer in `Sforce-Limit-Info: api-usage=used/max` (REST API
// Developer Guide, "Limit Info Header":
// developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_api_usage.htm);
// once spent, calls answer 403 with errorCode REQUEST_LIMIT_EXCEEDED ("Status
// Codes and Error Responses": …/api_rest/errorcodes.htm: "If the error code is
// REQUEST_LIMIT_EXCEEDED, you've exceeded API request limits in your org").
// The same code names the concurrent long-running request limit (25 per org
// for requests of 20 seconds or more: "API Request Limits and Allocations",
// developer.salesforce.com/docs/atlas.en-us.salesforce_app_limits_cheatsheet.meta/salesforce_app_limits_cheatsheet/salesforce_app_limits_platform_api.htm),
// told apart by its message.
import { z } from 'zod';

export const CALL_KINDS = ['query', 'write', 'note', 'tooling', 'describe', 'token', 'other'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

export const ZSalesforceFaults = z.object({
  /** The org's API allowance over 24 hours (Enterprise Edition: 100,000 plus per-licence additions). */
  apiLimit: z.number().int().min(1).default(100_000),
  /** Requests counted so far in the window; every REST call adds one. */
  apiUsed: z.number().int().min(0).default(0),
  /** The next N calls (of `on`) answer 403 REQUEST_LIMIT_EXCEEDED: the daily allowance (`total`) or the concurrent long-running requests (`concurrent`). */
  requestLimitNext: z.number().int().min(0).default(0),
  requestLimitKind: z.enum(['total', 'concurrent']).default('total'),
  /** A Retry-After (seconds) on a 429 a gateway in front of Salesforce sends: the next N calls answer 429. */
  tooManyRequestsNext: z.number().int().min(0).default(0),
  /** The next N calls (of `on`) answer this 5xx. */
  serverErrorNext: z.number().int().min(0).default(0),
  serverErrorStatus: z.number().int().min(500).max(599).default(503),
  /** The next N calls (of `on`) are carried out, but the connection drops before the answer. */
  answerLostNext: z.number().int().min(0).default(0),
  /** Which calls the counters above hit. */
  on: z.enum(['all', ...CALL_KINDS]).default('all'),
  /** The API user lacks Customize Application (and the right to manage permission sets): creating fields or permission sets is refused. */
  lacksFieldRights: z.boolean().default(false),
  /** Lifetime of new access tokens: the org's session timeout (2 hours by default). */
  accessTokenTtlSeconds: z.number().int().min(1).default(7200),
});
export type SalesforceFaults = z.infer<typeof ZSalesforceFaults>;

export const hits = (faults: SalesforceFaults, kind: CallKind) => (faults.on === 'all' ? kind !== 'token' : faults.on === kind);

/** The error bodies Salesforce sends: an array of { message, errorCode } (plus `fields` where a field is at fault). */
export const sfErrors = (errorCode: string, message: string, fields?: string[]) => [{ message, errorCode, ...(fields ? { fields } : {}) }];

export const requestLimitMessage = (kind: 'total' | 'concurrent', used: number, limit: number) =>
  kind === 'total' ? `TotalRequests Limit exceeded. (${used}/${limit})` : 'ConcurrentPerOrgLongTxn Limit exceeded.';
