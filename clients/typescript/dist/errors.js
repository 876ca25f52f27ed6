/** An error reply of the API (docs/api.md#errors): `code` is its machine-readable `error`. */
export class ProspectApiError extends Error {
    status;
    code;
    body;
    constructor(status, body) {
        super(body?.message ?? body?.error ?? `HTTP ${status}`);
        this.name = 'ProspectApiError';
        this.status = status;
        this.code = body?.error ?? `http_${status}`;
        this.body = body;
    }
}
/** 429 `credits_exhausted` or `trial_limit_reached`: not retried (docs/api.md#retry-advice); `used` and `limit` say where the account stands. */
export class CreditsError extends ProspectApiError {
    used;
    limit;
    constructor(status, body) {
        super(status, body);
        this.name = 'CreditsError';
        this.used = body.used ?? 0;
        this.limit = body.limit ?? 0;
    }
}
/** The request never got an answer (connection refused or reset, DNS) after the retries. */
export class ProspectNetworkError extends Error {
    constructor(message, options) {
        super(message, options);
        this.name = 'ProspectNetworkError';
    }
}
/** The job ended `failed` (`internal_error` or `timeout`), also after the one resubmission the spec recommends. */
export class ResearchFailedError extends Error {
    researchId;
    code;
    /** The failed job's id before the resubmission, when there was one. */
    firstResearchId;
    constructor(researchId, code, firstResearchId) {
        super(`research ${researchId} failed: ${code}`);
        this.name = 'ResearchFailedError';
        this.researchId = researchId;
        this.code = code;
        this.firstResearchId = firstResearchId;
    }
}
/** The job did not end within the client's patience (3 minutes by default, docs/api.md#polling). Resubmitting yields a new job. */
export class ResearchTimeoutError extends Error {
    researchId;
    constructor(researchId, waitedMs) {
        super(`research ${researchId} did not end within ${Math.round(waitedMs / 1000)} s`);
        this.name = 'ResearchTimeoutError';
        this.researchId = researchId;
    }
}
export function errorFromReply(status, body) {
    if (status === 429 && body && (body.error === 'credits_exhausted' || body.error === 'trial_limit_reached'))
        return new CreditsError(status, body);
    return new ProspectApiError(status, body);
}
