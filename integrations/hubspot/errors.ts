// What a HubSpot answer means for us (docs/crm.md#hubspots-rules-we-follow, from
// developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines and
// the OAuth pages): a dead grant pauses the account's integrations, a bad
// client is our configuration, 429/423/477/5xx are retried, the rest is a
// refusal of this one request. Each is the CRM-neutral error of the same
// meaning (integrations/crm/errors.ts), with HubSpot's details.
import { CrmAuthRevoked, CrmConfigRejected, CrmRejected, CrmUnavailable } from '../crm/errors.ts';

/** The refresh token is revoked or the app uninstalled (`invalid_grant`, BAD_REFRESH_TOKEN, BAD_HUB): reconnecting is the only way on. */
export class HubSpotAuthRevoked extends CrmAuthRevoked {
  override name = 'HubSpotAuthRevoked';
}

/** Our client id or secret is refused (`invalid_client`, BAD_CLIENT_ID/SECRET): an operator must fix the configuration. */
export class HubSpotConfigRejected extends CrmConfigRejected {
  override name = 'HubSpotConfigRejected';
}

/** Retryable: rate limited, locked, migrating, 5xx or the network; `retryAfterMs` is how long HubSpot asks us to wait. */
export class HubSpotUnavailable extends CrmUnavailable {
  override name = 'HubSpotUnavailable';
}

/** A request HubSpot refused for good (400, 403, 404, 409): its category and the property errors it named. */
export class HubSpotRejected extends CrmRejected {
  override name = 'HubSpotRejected';
  readonly category: string | null;
  readonly subCategory: string | null;
  /** PROPERTY_DOESNT_EXIST and the like, with the property each names. */
  readonly propertyErrors: Array<{ error: string; name: string }>;
  constructor(status: number, body: unknown) {
    const fields = (body ?? {}) as { message?: string; category?: string; subCategory?: string };
    super(status, `HubSpot answered ${status}${fields.category ? ` ${fields.category}` : ''}: ${fields.message ?? JSON.stringify(body)}`);
    this.category = fields.category ?? null;
    this.subCategory = fields.subCategory ?? null;
    this.propertyErrors = propertyErrorsOf(fields.message ?? '');
  }
}

/** HubSpot embeds its per-property errors as JSON in the message: `Property values were not valid: [{"error":"PROPERTY_DOESNT_EXIST","name":"x",…}]`. */
function propertyErrorsOf(message: string): Array<{ error: string; name: string }> {
  const start = message.indexOf('[');
  if (start < 0) return [];
  try {
    const parsed = JSON.parse(message.slice(start)) as Array<{ error?: string; name?: string }>;
    return parsed.filter((each) => typeof each.error === 'string' && typeof each.name === 'string').map((each) => ({ error: each.error!, name: each.name! }));
  } catch {
    return [];
  }
}

/** Refresh-grant and token-call errors by HubSpot's `error` / `status` fields. */
export function oauthFailure(status: number, body: unknown): Error {
  const fields = (body ?? {}) as { error?: string; status?: string; message?: string; error_description?: string };
  const text = fields.error_description ?? fields.message ?? JSON.stringify(body);
  if (status === 429 || status >= 500) return new HubSpotUnavailable(`HubSpot OAuth answered ${status}: ${text}`, status, 1_000);
  if (fields.error === 'invalid_client' || /^BAD_CLIENT/.test(fields.status ?? '')) return new HubSpotConfigRejected(`HubSpot refused the app's credentials: ${text}`);
  if (fields.error === 'invalid_grant' || fields.status === 'BAD_REFRESH_TOKEN' || fields.status === 'BAD_HUB' || fields.error === 'access_denied') {
    return new HubSpotAuthRevoked(`HubSpot refused the grant (${fields.status ?? fields.error}): ${text}`);
  }
  return new HubSpotRejected(status, body);
}
