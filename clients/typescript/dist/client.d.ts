import type { Accepted, CompletedReply, ResearchRequest, StatusReply } from './types.ts';
export interface ClientOptions {
    /** `svc_live_…` (docs/api.md#authentication). */
    apiKey: string;
    /** The API's base URL, e.g. `https://api.example.com`. */
    baseUrl: string;
    /** Defaults to the global `fetch`. */
    fetch?: typeof fetch;
    /** Patience per job: the spec says to give up after 3 minutes (docs/api.md#polling). */
    pollTimeoutMs?: number;
    /** Seconds one long poll (`?wait=`, an extension) may be held; at most 25. */
    longPollSeconds?: number;
    /** Before resubmitting a failed job once (docs/api.md#retry-advice: 5 s). */
    resubmitDelayMs?: number;
    /** Retries of a 5xx or unanswered request (docs/api.md#retry-advice: exponential backoff, at most 3). */
    maxServerRetries?: number;
    /** The first 5xx backoff; doubled for each further retry. */
    serverRetryBaseMs?: number;
}
export interface ResearchOptions {
    /** Sent as `Idempotency-Key` (an extension): a retried submission is never charged twice. A new one is made when omitted. */
    idempotencyKey?: string;
    signal?: AbortSignal;
}
export type ResearchManyItem = string | ResearchRequest;
export type ResearchManyResult = {
    request: ResearchRequest;
    ok: true;
    reply: CompletedReply;
} | {
    request: ResearchRequest;
    ok: false;
    error: Error;
};
export interface ResearchManyOptions {
    /** Jobs in flight at once (default 5). */
    concurrency?: number;
    /** Called after each job ends, successfully or not. */
    onProgress?: (progress: {
        done: number;
        total: number;
        succeeded: number;
        failed: number;
        last: ResearchManyResult;
    }) => void;
    signal?: AbortSignal;
}
/**
 * The Prospect Enrichment API with the spec's client rules built in:
 * submit and wait (`research`), many at once (`researchMany`), or the two
 * calls themselves (`submit`, `status`).
 */
export declare class ProspectEnrichment {
    private readonly options;
    constructor(options: ClientOptions);
    /** `POST /research`: starts a job (1 credit). 5xx replies are retried with the same Idempotency-Key. */
    submit(request: ResearchRequest, options?: ResearchOptions): Promise<Accepted>;
    /** `GET /research-status/{id}`, optionally held up to `waitSeconds` until the job ends (the `?wait=` extension). */
    status(researchId: string, options?: {
        waitSeconds?: number;
        signal?: AbortSignal;
    }): Promise<StatusReply>;
    /**
     * Polls a job until it ends: long polls, falling back to the spec's backoff
     * (2 s ×1.5, ≤ 10 s) when the server answers at once; gives up after
     * `pollTimeoutMs` (3 minutes) with ResearchTimeoutError.
     */
    waitFor(researchId: string, options?: {
        signal?: AbortSignal;
    }): Promise<StatusReply>;
    /**
     * Researches one prospect and returns the completed reply: submits, waits,
     * and resubmits a `failed` job once after 5 s (a new credit, docs/api.md#retry-advice).
     * Throws ProspectApiError (CreditsError with `used`/`limit` for 429s),
     * ResearchFailedError, ResearchTimeoutError or ProspectNetworkError.
     */
    research(request: ResearchRequest | string, options?: ResearchOptions): Promise<CompletedReply>;
    /** Researches many prospects, `concurrency` at a time; results in input order, each a success or its error. */
    researchMany(items: ResearchManyItem[], options?: ResearchManyOptions): Promise<ResearchManyResult[]>;
    private submitAndWait;
    /** One API call; 5xx and unanswered requests retried with exponential backoff, at most `maxServerRetries` times. */
    private call;
}
