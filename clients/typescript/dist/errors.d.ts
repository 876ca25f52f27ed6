import type { ErrorBody, ErrorCode } from './types.ts';
/** An error reply of the API (docs/api.md#errors): `code` is its machine-readable `error`. */
export declare class ProspectApiError extends Error {
    readonly status: number;
    readonly code: ErrorCode;
    readonly body: ErrorBody | null;
    constructor(status: number, body: ErrorBody | null);
}
/** 429 `credits_exhausted` or `trial_limit_reached`: not retried (docs/api.md#retry-advice); `used` and `limit` say where the account stands. */
export declare class CreditsError extends ProspectApiError {
    readonly used: number;
    readonly limit: number;
    constructor(status: number, body: ErrorBody);
}
/** The request never got an answer (connection refused or reset, DNS) after the retries. */
export declare class ProspectNetworkError extends Error {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
/** The job ended `failed` (`internal_error` or `timeout`), also after the one resubmission the spec recommends. */
export declare class ResearchFailedError extends Error {
    readonly researchId: string;
    readonly code: 'internal_error' | 'timeout';
    /** The failed job's id before the resubmission, when there was one. */
    readonly firstResearchId: string | null;
    constructor(researchId: string, code: 'internal_error' | 'timeout', firstResearchId: string | null);
}
/** The job did not end within the client's patience (3 minutes by default, docs/api.md#polling). Resubmitting yields a new job. */
export declare class ResearchTimeoutError extends Error {
    readonly researchId: string;
    constructor(researchId: string, waitedMs: number);
}
export declare function errorFromReply(status: number, body: ErrorBody | null): ProspectApiError;
