// What a CRM's answer means for us, whichever CRM (docs/crm.md#crms): a dead
// grant pauses the account's integrations, a refused client is our
// configuration, a limit or an outage is waited out, the rest is a refusal of
// this one request. Each CRM's client throws these (HubSpot's own classes
// extend them).

/** The grant is revoked or the app uninstalled: reconnecting is the only way on. */
export class CrmAuthRevoked extends Error {
  override name = 'CrmAuthRevoked';
}

/** Our client id or secret is refused: an operator must fix the configuration. */
export class CrmConfigRejected extends Error {
  override name = 'CrmConfigRejected';
}

/**
 * A portal held off for a longer allowance of the CRM (Pipedrive's day of
 * tokens, Salesforce's 24 hours of API requests): why, in words for the
 * account's owner, and until when no call goes to the CRM.
 */
export interface CrmHoldOff {
  reason: string;
  until: Date;
}

/** Retryable: rate limited, an allowance spent, 5xx or the network; `retryAfterMs` is how long to wait. */
export class CrmUnavailable extends Error {
  override name = 'CrmUnavailable';
  readonly status: number | null;
  readonly retryAfterMs: number;
  /** Set when an allowance is spent and the wait is a long hold-off: the preview and the run say why and until when. */
  readonly holdOff: CrmHoldOff | null;
  constructor(message: string, status: number | null, retryAfterMs: number, holdOff: CrmHoldOff | null = null) {
    super(message);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.holdOff = holdOff;
  }
}

/** A request the CRM refused for good (400, 403, 404, 409). */
export class CrmRejected extends Error {
  override name = 'CrmRejected';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
  get isConflict() {
    return this.status === 409;
  }
  get isNotFound() {
    return this.status === 404;
  }
}
