// What the page's Content-Security-Policy asks of the code (docs/security.md#headers).
// Imported first by main.tsx: zod reads its setting when a schema is built.
import { z } from 'zod';

// zod compiles object parsers with `new Function` where it may; the policy allows
// no eval, and even zod's caught probe for it is reported as a violation.
z.config({ jitless: true });

/**
 * The nonce the server put in `<meta property="csp-nonce">` for this page: the
 * style-src allows run-time <style> elements by it. Read from the property,
 * since browsers hide a nonce attribute's value.
 */
const pageNonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce || undefined;

// Mantine's modals lock scrolling with react-remove-scroll, whose <style> takes the nonce from webpack's global.
if (pageNonce) (globalThis as { __webpack_nonce__?: string }).__webpack_nonce__ = pageNonce;

/** For MantineProvider: its run-time <style> elements (CSS variables, responsive props) carry the nonce. */
export const styleNonce = pageNonce === undefined ? undefined : () => pageNonce;
