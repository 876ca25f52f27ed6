export type paths = {
    "/research": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start an enrichment job (1 credit) */
        post: operations["startResearch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/research-status/{research_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Poll a job (free) */
        get: operations["getResearchStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = {
    "research.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** research.completed: a job ended completed; retried for about a day until a 2xx */
        post: operations["researchCompletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "research.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** research.failed: a job ended failed; retried for about a day until a 2xx */
        post: operations["researchFailedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** webhook.test: "Send test event" on the Webhooks page; retried for about a day until a 2xx */
        post: operations["webhookTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type components = {
    schemas: {
        ResearchRequest: {
            /**
             * Format: email
             * @description Prospect's work e-mail address; trimmed and lower-cased before the check
             */
            email: string;
            /** @description Full name, improves match accuracy; no control characters */
            prospect_name?: string | null;
            /** @description Company name, improves match accuracy; no control characters */
            company_name?: string | null;
            /** @description Prospect's profile URL; no control characters */
            social_url?: string | null;
            /** @description Company page URL, overrides the automatically detected one; no control characters */
            company_social_url?: string | null;
        } & {
            [key: string]: unknown;
        };
        Accepted: {
            research_id: string;
            /** @constant */
            status: "processing";
            estimated_seconds: number;
        };
        ErrorBody: {
            error: string;
            message?: string;
            used?: number;
            limit?: number;
        } & {
            [key: string]: unknown;
        };
        StatusReply: components["schemas"]["RunningReply"] | components["schemas"]["CompletedReply"] | components["schemas"]["FailedReply"];
        RunningReply: {
            research_id: string;
            /** @enum {string} */
            status: "queued" | "processing";
            estimated_seconds: number;
        };
        CompletedReply: {
            research_id: string;
            /** @constant */
            status: "completed";
            /** @description ISO 8601 with offset */
            completed_at: string;
            data: components["schemas"]["ResearchData"];
            _meta?: components["schemas"]["ReplyMeta"];
        };
        FailedReply: {
            research_id: string;
            /** @constant */
            status: "failed";
            /** @enum {string} */
            error: "internal_error" | "timeout";
        };
        ResearchData: {
            prospect: components["schemas"]["Prospect"] | null;
            company: components["schemas"]["Company"] | null;
            decision_makers: components["schemas"]["DecisionMaker"][];
        };
        Prospect: {
            id: number;
            name: string | null;
            /** @description Job title, in English */
            title: string | null;
            company: string | null;
            email: string;
            social_url: string | null;
            photo: string | null;
            /** @description YYYY-MM-DD */
            last_role_start: string | null;
            summary: string | null;
            opening_talk: string[] | null;
            posts: components["schemas"]["Post"][] | null;
        };
        Company: {
            id: number;
            name: string | null;
            /** @description In English */
            description: string | null;
            social_url: string | null;
            website: string | null;
            industry: string | null;
            hq: string | null;
            revenue: string | null;
            employees: string | null;
            technologies: string[] | null;
            problems: string[] | null;
            services: string[] | null;
            icp: string[] | null;
            synergy_points: string[] | null;
            discovery_questions: string[] | null;
            clients: {
                count: string;
            } | null;
            news: components["schemas"]["NewsItem"][] | null;
            insights: string[] | null;
            posts: components["schemas"]["Post"][] | null;
        };
        DecisionMaker: {
            id: number;
            full_name: string;
            position_title: string;
            social_url: string;
            picture_url: string | null;
            location_text: string | null;
            company_name: string;
        };
        Post: {
            text: string;
            /** @description YYYY-MM-DD HH:MM:SS */
            posted: string;
            post_url: string;
            reshared: boolean;
            summary: string | null;
        };
        NewsItem: {
            summary: string | null;
            url: string;
            /** @description YYYY-MM */
            date: string;
        };
        /** @description Informational only; may change between versions */
        ReplyMeta: {
            prospect?: {
                from_cache: boolean;
                cache_age_days: number;
                source: string | null;
                /**
                 * @description Why no person was found: the address (free_mail, disposable, role_address) or the sources
                 * @enum {string}
                 */
                reason?: "free_mail" | "disposable" | "role_address" | "not_found" | "providers_unavailable";
            };
            company?: {
                from_cache: boolean;
                apis_called: string[];
            };
            ai?: {
                source: string | null;
                generated: boolean;
            };
        };
        ResearchCompletedEvent: {
            /** @constant */
            type: "research.completed";
            /** @description When the event was created (ISO 8601, UTC); the same on every attempt */
            timestamp: string;
            data: components["schemas"]["CompletedReply"];
        };
        ResearchFailedEvent: {
            /** @constant */
            type: "research.failed";
            /** @description When the event was created (ISO 8601, UTC); the same on every attempt */
            timestamp: string;
            data: components["schemas"]["FailedReply"];
        };
        WebhookTestEvent: {
            /** @constant */
            type: "webhook.test";
            /** @description When the event was created (ISO 8601, UTC); the same on every attempt */
            timestamp: string;
            data: {
                message: string;
            };
        };
        WebhookEvent: components["schemas"]["ResearchCompletedEvent"] | components["schemas"]["ResearchFailedEvent"] | components["schemas"]["WebhookTestEvent"];
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    startResearch: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResearchRequest"];
            };
        };
        responses: {
            /** @description Accepted; poll the status endpoint */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Accepted"];
                };
            };
            /** @description missing_key_id, api_key_has_no_product, missing_email, invalid_email_format, invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description missing_api_key, invalid_key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description idempotency_key_reused */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description credits_exhausted, trial_limit_reached (with used and limit) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getResearchStatus: {
        parameters: {
            query?: {
                /** @description Hold the reply until the job ends or this many seconds pass; values above 25 count as 25 */
                wait?: number;
            };
            header?: never;
            path: {
                research_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusReply"];
                };
            };
            /** @description missing_key_id, invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description missing_api_key, invalid_key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    researchCompletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt, for de-duplication */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the whsec_ secret (two during a rotation) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResearchCompletedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered. 410 disables the endpoint; another 4xx is not retried. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    researchFailedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt, for de-duplication */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the whsec_ secret (two during a rotation) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResearchFailedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered. 410 disables the endpoint; another 4xx is not retried. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTestEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id: the same on every attempt, for de-duplication */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the whsec_ secret (two during a rotation) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookTestEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered. 410 disables the endpoint; another 4xx is not retried. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
