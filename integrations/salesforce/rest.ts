// Every REST call a sync makes to an org, over fetch rather than jsforce:
// jsforce retries 429 and 5xx itself (lib/request.js: for GET, PUT, DELETE,
// outside our budget), refreshes tokens itself when given a refresh token,
// throws errors without the HTTP status, and keeps only the last answer's
// Sforce-Limit-Info on the connection. Here each call waits for the org's
// budget, reads the Limit Info header (REST API Developer Guide, "Limit Info
// Header": api-usage=used/max over a rolling 24 hours) and holds every
// process off once usage passes the allowance less the reserve, and is
// answered as "Status Codes and Error Responses" documents: errors are
// [{ message, errorCode, fields }]; 401 INVALID_SESSION_ID once with the
// token refreshed (docs/crm.md#tokens); 403 REQUEST_LIMIT_EXCEEDED is the
// day's allowance (held off, not retried) or the concurrent long-running
// requests (held off briefly, retried); 5xx and the network with a growing
// pause unless the call must not be repeated.
import type { AccessTokenSource, CrmCallBudget } from '../crm/adapter.ts';
import { CrmAuthRevoked, CrmRejected, CrmUnavailable } from '../crm/errors.ts';

export interface RetryPolicy {
  attempts: number;
  serverErrorBaseMs: number;
  /** Wait after a concurrent-requests refusal or a 429 without Retry-After. */
  concurrentMs: number;
}

export const SALESFORCE_RETRY: RetryPolicy = { attempts: 4, serverErrorBaseMs: 500, concurrentMs: 5_000 };

/** A refusal with Salesforce's errorCode, for callers that tell refusals apart. */
export class SalesforceRejected extends CrmRejected {
  override name = 'SalesforceRejected';
  readonly errorCode: string;
  constructor(status: number, errorCode: string, message: string) {
    super(status, `${errorCode}: ${message}`);
    this.errorCode = errorCode;
  }
}

export interface SalesforceRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** Under /services/data/vXX.X (`/query?q=…`), or a path from the instance root (`/services/data/v62.0/query/01g…-200`). */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** False for creates: an answer lost to the network or a 5xx may come after Salesforce did the work. */
  isRepeatable?: boolean;
  /** The body as text (a blob), not JSON. */
  isText?: boolean;
}

export interface SalesforceRest {
  call<T>(request: SalesforceRequest): Promise<T>;
}

export function createSalesforceRest(options: {
  apiBase: string;
  apiVersion: string;
  accessToken: AccessTokenSource;
  budget: CrmCallBudget;
  limits: { reservePercent: number; holdOffMs: number };
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
  fetchFn?: typeof fetch;
}): SalesforceRest {
  const retry = { ...SALESFORCE_RETRY, ...options.retry };
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const fetchFn = options.fetchFn ?? fetch;
  const urlOf = (path: string) => `${options.apiBase}${path.startsWith('/services/') ? path : `/services/data/v${options.apiVersion}${path}`}`;

  /** Holds every process off when the day's usage passed the share left after the reserve. */
  async function watchUsage(header: string | null) {
    const usage = /api-usage=(\d+)\/(\d+)/.exec(header ?? '');
    if (!usage) return;
    const [used, max] = [Number(usage[1]), Number(usage[2])];
    if (used >= (max * (100 - options.limits.reservePercent)) / 100) {
      await options.budget.holdOff(options.limits.holdOffMs, `Salesforce's 24-hour API allowance is down to the ${options.limits.reservePercent}% kept for the org's own use (${used} of ${max} requests used)`);
    }
  }

  return {
    async call<T>(request: SalesforceRequest): Promise<T> {
      const isRepeatable = request.isRepeatable ?? true;
      let refreshed = false;
      for (let attempt = 1; ; attempt++) {
        await options.budget.acquire('api');
        const token = await options.accessToken();
        let reply: Response;
        try {
          reply = await fetchFn(urlOf(request.path), {
            method: request.method,
            headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
            body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
          });
        } catch (error) {
          const wait = retry.serverErrorBaseMs * 2 ** (attempt - 1);
          if (!isRepeatable || attempt >= retry.attempts) throw new CrmUnavailable(`Salesforce could not be reached: ${(error as Error).message}`, null, wait);
          await sleep(wait);
          continue;
        }
        await watchUsage(reply.headers.get('sforce-limit-info'));
        if (reply.ok) return (request.isText ? await reply.text() : reply.status === 204 ? null : await reply.json()) as T;
        const body = (await reply.json().catch(() => null)) as Array<{ errorCode?: string; message?: string }> | null;
        const first = Array.isArray(body) ? body[0] : undefined;
        const errorCode = first?.errorCode ?? `HTTP_${reply.status}`;
        const message = first?.message ?? reply.statusText;
        if (reply.status === 401) {
          if (refreshed) throw new CrmAuthRevoked(`Salesforce refused a freshly refreshed token: ${errorCode}: ${message}`);
          refreshed = true;
          await options.accessToken({ refused: token });
          continue;
        }
        if (errorCode === 'REQUEST_LIMIT_EXCEEDED' && !/concurrent/i.test(message) && reply.status !== 429) {
          // The day's allowance is spent: every process waits; Salesforce did nothing.
          const reason = `Salesforce's 24-hour API allowance is spent (${message})`;
          await options.budget.holdOff(options.limits.holdOffMs, reason);
          throw new CrmUnavailable(reason, reply.status, options.limits.holdOffMs, { reason, until: new Date(Date.now() + options.limits.holdOffMs) });
        }
        if (errorCode === 'REQUEST_LIMIT_EXCEEDED' || reply.status === 429) {
          const retryAfter = Number(reply.headers.get('retry-after'));
          const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : retry.concurrentMs;
          await options.budget.holdOff(wait);
          if (attempt >= retry.attempts) throw new CrmUnavailable(`Salesforce answered ${reply.status} ${errorCode} ${attempt} time(s)`, reply.status, wait);
          await sleep(wait);
          continue;
        }
        if (reply.status >= 500) {
          const wait = retry.serverErrorBaseMs * 2 ** (attempt - 1);
          if (!isRepeatable || attempt >= retry.attempts) throw new CrmUnavailable(`Salesforce answered ${reply.status} ${errorCode}: ${message}`, reply.status, wait);
          await sleep(wait);
          continue;
        }
        throw new SalesforceRejected(reply.status, errorCode, message);
      }
    },
  };
}
