// The authorization request an agent started, as the OAuth provider hands it
// to the sign-in and consent pages: its parameters, signed (`sig`) over the
// names listed in `ba_param`, valid until `exp`. The provider checks the
// signature over exactly those parameters, so nothing else may travel with them.

const SIGNATURE = 'sig';
const SIGNED_NAMES = 'ba_param';
/** The provider's own bookkeeping, not part of the agent's request. */
const PROVIDER_PARAMETERS = new Set([SIGNATURE, SIGNED_NAMES, 'exp', 'ba_iat', 'ba_pl']);

/** The signed query of an authorization request in `search` (the page's query string), or null when the page has none. */
export function signedOAuthQuery(search: string): string | null {
  const params = new URLSearchParams(search);
  const names = new Set(params.getAll(SIGNED_NAMES));
  if (!params.has(SIGNATURE) || names.size === 0) return null;
  const signed = new URLSearchParams();
  for (const [name, value] of params) if (name === SIGNATURE || name === SIGNED_NAMES || names.has(name)) signed.append(name, value);
  return signed.toString();
}

/**
 * The authorization endpoint's address for the agent's own request, without
 * the signature: opened by a signed-in browser, it resumes the flow (the
 * consent page, or straight back to an agent already allowed). A sign-in link
 * by e-mail lands there, whenever it is opened within its own lifetime.
 */
export function authorizationRequestPath(search: string): string | null {
  const signed = signedOAuthQuery(search);
  if (!signed) return null;
  const request = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(signed)) if (!PROVIDER_PARAMETERS.has(name)) request.append(name, value);
  return `/app/api/auth/oauth2/authorize?${request}`;
}

export interface AuthorizationRequest {
  clientId: string;
  scopes: string[];
  /** Where the answer goes back to: the agent's redirect URI. */
  redirectUri: string | null;
  /** The signed query the consent endpoint needs. */
  oauthQuery: string;
}

export function authorizationRequestOf(search: string): AuthorizationRequest | null {
  const oauthQuery = signedOAuthQuery(search);
  if (!oauthQuery) return null;
  const params = new URLSearchParams(oauthQuery);
  const clientId = params.get('client_id');
  if (!clientId) return null;
  const scopes = (params.get('scope') ?? '').split(' ').filter((scope) => scope.length > 0);
  return { clientId, scopes: [...new Set(scopes)], redirectUri: params.get('redirect_uri'), oauthQuery };
}

/** True once the signed request's `exp` (seconds) has passed: the provider would refuse it, so the page says so first. */
export function hasExpired(oauthQuery: string, now = Date.now()): boolean {
  const exp = Number(new URLSearchParams(oauthQuery).get('exp'));
  return !Number.isFinite(exp) || exp * 1000 < now;
}
