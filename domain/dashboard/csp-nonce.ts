/**
 * Written by the build into index.html (Vite's `html.cspNonce`: the
 * `<meta property="csp-nonce">` and its script and style tags); the API puts a
 * fresh nonce in its place in each page it serves (api/dashboard/static.ts).
 * Here in domain/ because the API's image carries domain/ and not the
 * dashboard's sources.
 */
export const CSP_NONCE_PLACEHOLDER = 'CSP_NONCE_PLACEHOLDER';
