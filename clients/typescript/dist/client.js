import { errorFromReply, ProspectNetworkError, ResearchFailedError, ResearchTimeoutError } from "./errors.js";
// The contract's polling backoff (docs/api.md#polling): 2 s, ×1.5, at most 10 s.
const BACKOFF_START_MS = 2_000;
const BACKOFF_FACTOR = 1.5;
const BACKOFF_MAX_MS = 10_000;
const sleep = (ms, signal) => new Promise((resolve, reject) => {
    if (signal?.aborted)
        return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
});
/**
 * The Prospect Enrichment API with the spec's client rules built in:
 * submit and wait (`research`), many at once (`researchMany`), or the two
 * calls themselves (`submit`, `status`).
 */
export class ProspectEnrichment {
    options;
    constructor(options) {
        this.options = {
            pollTimeoutMs: 180_000,
            longPollSeconds: 20,
            resubmitDelayMs: 5_000,
            maxServerRetries: 3,
            serverRetryBaseMs: 500,
            ...options,
            baseUrl: options.baseUrl.replace(/\/+$/, ''),
            fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
        };
    }
    /** `POST /research`: starts a job (1 credit). 5xx replies are retried with the same Idempotency-Key. */
    submit(request, options = {}) {
        const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
        return this.call('POST', '/research', { body: JSON.stringify(request), headers: { 'idempotency-key': idempotencyKey }, signal: options.signal });
    }
    /** `GET /research-status/{id}`, optionally held up to `waitSeconds` until the job ends (the `?wait=` extension). */
    status(researchId, options = {}) {
        const query = options.waitSeconds ? `?wait=${Math.min(25, Math.max(0, Math.floor(options.waitSeconds)))}` : '';
        return this.call('GET', `/research-status/${encodeURIComponent(researchId)}${query}`, { signal: options.signal });
    }
    /**
     * Polls a job until it ends: long polls, falling back to the spec's backoff
     * (2 s ×1.5, ≤ 10 s) when the server answers at once; gives up after
     * `pollTimeoutMs` (3 minutes) with ResearchTimeoutError.
     */
    async waitFor(researchId, options = {}) {
        const startedAt = Date.now();
        let backoffMs = BACKOFF_START_MS;
        for (;;) {
            const remainingMs = this.options.pollTimeoutMs - (Date.now() - startedAt);
            if (remainingMs <= 0)
                throw new ResearchTimeoutError(researchId, Date.now() - startedAt);
            const waitSeconds = Math.max(1, Math.min(this.options.longPollSeconds, Math.floor(remainingMs / 1000)));
            const polledAt = Date.now();
            const reply = await this.status(researchId, { waitSeconds, signal: options.signal });
            if (reply.status === 'completed' || reply.status === 'failed')
                return reply;
            // Held for less than half the wait: the server did not hold it (no long polls there); back off as the spec says.
            if (Date.now() - polledAt < (waitSeconds * 1000) / 2) {
                await sleep(Math.min(backoffMs, Math.max(0, this.options.pollTimeoutMs - (Date.now() - startedAt))), options.signal);
                backoffMs = Math.min(BACKOFF_MAX_MS, backoffMs * BACKOFF_FACTOR);
            }
        }
    }
    /**
     * Researches one prospect and returns the completed reply: submits, waits,
     * and resubmits a `failed` job once after 5 s (a new credit, docs/api.md#retry-advice).
     * Throws ProspectApiError (CreditsError with `used`/`limit` for 429s),
     * ResearchFailedError, ResearchTimeoutError or ProspectNetworkError.
     */
    async research(request, options = {}) {
        const body = typeof request === 'string' ? { email: request } : request;
        const first = await this.submitAndWait(body, options.idempotencyKey, options.signal);
        if (first.status === 'completed')
            return first;
        if (first.status !== 'failed')
            throw new Error(`unexpected status ${first.status}`);
        await sleep(this.options.resubmitDelayMs, options.signal);
        // A new key: the same key would return the failed job again.
        const second = await this.submitAndWait(body, undefined, options.signal);
        if (second.status === 'completed')
            return second;
        throw new ResearchFailedError(second.research_id, second.status === 'failed' ? second.error : 'internal_error', first.research_id);
    }
    /** Researches many prospects, `concurrency` at a time; results in input order, each a success or its error. */
    async researchMany(items, options = {}) {
        const requests = items.map((item) => (typeof item === 'string' ? { email: item } : item));
        const results = new Array(requests.length);
        const counts = { done: 0, succeeded: 0, failed: 0 };
        let next = 0;
        const lane = async () => {
            while (next < requests.length) {
                const index = next++;
                const request = requests[index];
                let result;
                try {
                    result = { request, ok: true, reply: await this.research(request, { signal: options.signal }) };
                    counts.succeeded += 1;
                }
                catch (error) {
                    if (options.signal?.aborted)
                        throw error;
                    result = { request, ok: false, error: error };
                    counts.failed += 1;
                }
                results[index] = result;
                counts.done += 1;
                options.onProgress?.({ ...counts, total: requests.length, last: result });
            }
        };
        await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 5, requests.length)) }, lane));
        return results;
    }
    async submitAndWait(request, idempotencyKey, signal) {
        const accepted = await this.submit(request, { idempotencyKey, signal });
        // A cache hit may have completed already: the first poll comes at once (docs/api.md#polling).
        return this.waitFor(accepted.research_id, { signal });
    }
    /** One API call; 5xx and unanswered requests retried with exponential backoff, at most `maxServerRetries` times. */
    async call(method, path, init) {
        for (let attempt = 0;; attempt += 1) {
            let response;
            try {
                response = await this.options.fetch(`${this.options.baseUrl}${path}`, {
                    method,
                    headers: {
                        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
                        accept: 'application/json',
                        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
                        ...init.headers,
                    },
                    body: init.body,
                    signal: init.signal,
                });
            }
            catch (error) {
                if (init.signal?.aborted)
                    throw error;
                if (attempt >= this.options.maxServerRetries)
                    throw new ProspectNetworkError(`${method} ${path}: no answer`, { cause: error });
                await sleep(this.options.serverRetryBaseMs * 2 ** attempt, init.signal);
                continue;
            }
            const text = await response.text();
            const body = text ? safeJson(text) : null;
            if (response.ok)
                return body;
            if (response.status >= 500 && attempt < this.options.maxServerRetries) {
                await sleep(this.options.serverRetryBaseMs * 2 ** attempt, init.signal);
                continue;
            }
            throw errorFromReply(response.status, isErrorBody(body) ? body : null);
        }
    }
}
function safeJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return null;
    }
}
const isErrorBody = (body) => typeof body === 'object' && body !== null && typeof body.error === 'string';
