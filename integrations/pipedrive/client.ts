// The Pipedrive calls of one connection, through the official `pipedrive`
// client's request builders (its `…ApiFp` functions: path, query, JSON body,
// Bearer token). Each built request is sent by our own fetch transport rather
// than the SDK's axios instance: the SDK's interceptors hand back the body
// alone and, on an error, drop the status code and every header, and the
// budget needs both (429 vs 401 vs 5xx; x-ratelimit-*, the daily tokens).
//
// Every call first takes one call of the burst window from the shared budget
// and checks that its token cost leaves the daily reserve; the headers of
// each answer feed both back (docs/crm-pipedrive.md#limits-we-follow).
// Retries: 429 after Retry-After or the burst reset, every kind of call to
// the company held off meanwhile; a spent daily budget is not waited out
// here (the whole company is held off until the reset and the error goes
// up); 5xx and network errors with a growing pause, unless the call is not
// repeatable (a note create: Pipedrive may have made it); a 401 once, with
// the token stored after it.
import * as v1 from 'pipedrive/v1';
import * as v2 from 'pipedrive/v2';
import type { AccessTokenSource, CrmCallBudget } from '../crm/adapter.ts';
import { CrmAuthRevoked, CrmRejected, CrmUnavailable } from '../crm/errors.ts';
import { burstWaitMs, fitsDailyBudget, msUntilDailyReset, PIPEDRIVE_TOKEN_COSTS, rateStateOf, type PipedriveOperation, type RateState } from './limits.ts';

export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

/** What the SDK's request functions are handed instead of an axios instance: `request(config)`. */
export interface Transport {
  request(config: { url?: string; method?: string; headers?: Record<string, unknown>; data?: unknown }): Promise<Reply>;
}

type Built = (axios?: never, basePath?: string) => Promise<unknown>;

export function fetchTransport(timeoutMs = 30_000): Transport {
  return {
    async request(config) {
      const headers = Object.fromEntries(Object.entries(config.headers ?? {}).filter(([, value]) => value !== undefined).map(([name, value]) => [name, String(value)]));
      const response = await fetch(config.url!, {
        method: (config.method ?? 'GET').toUpperCase(),
        headers,
        body: config.data === undefined || config.data === '' ? undefined : String(config.data),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.status, headers: response.headers, body };
    },
  };
}

export interface RetryPolicy {
  attempts: number;
  serverErrorBaseMs: number;
  /** Longer waits than this are not slept here: the error goes up for the caller (a Temporal retry) to wait. */
  maxWaitMs: number;
}

export const PIPEDRIVE_RETRY: RetryPolicy = { attempts: 5, serverErrorBaseMs: 250, maxWaitMs: 15_000 };

export interface PipedriveSdk {
  v1: v1.Configuration;
  v2: v2.Configuration;
}

/** The SDK's request builders the integration uses, by the API version Pipedrive serves each in. */
export const pipedriveApi = {
  currentUser: (sdk: PipedriveSdk) => v1.UsersApiFp(sdk.v1),
  personFields: (sdk: PipedriveSdk) => v1.PersonFieldsApiFp(sdk.v1),
  filters: (sdk: PipedriveSdk) => v1.FiltersApiFp(sdk.v1),
  notes: (sdk: PipedriveSdk) => v1.NotesApiFp(sdk.v1),
  persons: (sdk: PipedriveSdk) => v2.PersonsApiFp(sdk.v2),
};

export const sdkFor = (apiBase: string, token: string): PipedriveSdk => ({
  v1: new v1.Configuration({ accessToken: token, basePath: `${apiBase}/api/v1` }),
  v2: new v2.Configuration({ accessToken: token, basePath: `${apiBase}/api/v2` }),
});

export interface PipedriveClient {
  /** Sends what `build` makes with the SDK; the answer's body on 2xx, else one of the CRM errors. */
  call<T>(operation: PipedriveOperation, build: (sdk: PipedriveSdk) => Promise<Built>, options?: { isRepeatable?: boolean }): Promise<T>;
}

export function createPipedriveClient(options: {
  apiBase: string;
  accessToken: AccessTokenSource;
  budget: CrmCallBudget;
  dailyReservePercent: number;
  transport?: Transport;
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
}): PipedriveClient {
  const retry = { ...PIPEDRIVE_RETRY, ...options.retry };
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => new Date());
  const transport = options.transport ?? fetchTransport();
  const { budget } = options;
  // The last daily state Pipedrive reported to this process.
  let daily: Pick<RateState, 'dailyLimit' | 'dailyRemaining'> = { dailyLimit: null, dailyRemaining: null };

  async function spentForToday(message: string): Promise<never> {
    const at = now();
    const wait = msUntilDailyReset(at);
    await budget.holdOff(wait, message);
    throw new CrmUnavailable(message, 429, wait, { reason: message, until: new Date(at.getTime() + wait) });
  }

  /** Feeds an answer's headers to the budget: an empty burst window waits for its reset, a daily budget under the reserve waits for tomorrow. */
  async function observe(state: RateState) {
    if (state.dailyRemaining !== null) daily = { dailyLimit: state.dailyLimit, dailyRemaining: state.dailyRemaining };
    if (state.burstRemaining === 0) await budget.holdOff(state.burstResetMs ?? 2_000);
  }

  async function call<T>(operation: PipedriveOperation, build: (sdk: PipedriveSdk) => Promise<Built>, { isRepeatable = true } = {}): Promise<T> {
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      await budget.acquire('burst');
      if (!fitsDailyBudget(daily, PIPEDRIVE_TOKEN_COSTS[operation], options.dailyReservePercent)) {
        await spentForToday(`Pipedrive's daily API token budget is down to the ${options.dailyReservePercent}% kept for the company's own use (${formatTokens(daily.dailyRemaining)} of ${formatTokens(daily.dailyLimit)} tokens left)`);
      }
      const token = await options.accessToken();
      let reply: Reply;
      try {
        const request = await build(sdkFor(options.apiBase, token));
        reply = (await request(transport as never)) as Reply;
      } catch (error) {
        // The network: no answer (or none complete). A create may have been made.
        const wait = retry.serverErrorBaseMs * 2 ** (attempt - 1);
        if (!isRepeatable || attempt >= retry.attempts) throw new CrmUnavailable(`Pipedrive could not be reached: ${(error as Error).message}`, null, wait);
        await sleep(wait);
        continue;
      }
      const state = rateStateOf(reply.headers);
      if (reply.status !== 429) await observe(state);
      else if (state.dailyRemaining !== null) daily = { dailyLimit: state.dailyLimit, dailyRemaining: state.dailyRemaining };
      if (reply.status >= 200 && reply.status < 300) return reply.body as T;
      if (reply.status === 401) {
        if (refreshed) throw new CrmAuthRevoked(`Pipedrive refused a freshly refreshed token: ${messageOf(reply.body)}`);
        refreshed = true;
        await options.accessToken({ refused: token });
        continue;
      }
      if (reply.status === 429) {
        if (state.dailyRemaining !== null && state.dailyRemaining <= 0) await spentForToday(`Pipedrive's daily API token budget is spent (${messageOf(reply.body)})`);
        const wait = burstWaitMs(state);
        await budget.holdOff(wait);
        if (attempt >= retry.attempts || wait > retry.maxWaitMs) throw new CrmUnavailable(`Pipedrive answered 429 ${attempt} time(s)`, 429, wait);
        await sleep(wait);
        continue;
      }
      if (reply.status >= 500) {
        const wait = state.retryAfterMs ?? retry.serverErrorBaseMs * 2 ** (attempt - 1);
        if (!isRepeatable || attempt >= retry.attempts || wait > retry.maxWaitMs) throw new CrmUnavailable(`Pipedrive answered ${reply.status}: ${messageOf(reply.body)}`, reply.status, wait);
        await sleep(wait);
        continue;
      }
      throw new CrmRejected(reply.status, `Pipedrive answered ${reply.status}: ${messageOf(reply.body)}`);
    }
  }

  return { call };
}

/** Pipedrive's error bodies: `{ success: false, error, error_info, … }` (and `message` from the OAuth server). */
export function messageOf(body: unknown): string {
  const fields = (body ?? {}) as { error?: unknown; message?: unknown; error_info?: unknown };
  const text = typeof fields.error === 'string' ? fields.error : typeof fields.message === 'string' ? fields.message : JSON.stringify(body);
  return String(text).slice(0, 500);
}

/** Token counts as people read them (30,000, not 30000): the hold-off's reason is shown on the CRM page. */
const formatTokens = (count: number | null) => (count === null ? 'an unknown number of' : count.toLocaleString('en-US'));
