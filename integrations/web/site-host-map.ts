// In development and tests there is no internet: a company's website is read
// from the provider world's site stand-in instead. The mapping is configuration
// (WEBSITE_STAND_IN_URL), applied where a page is fetched, so the website in the
// data stays the company's own address (https://acme.io/), never the stand-in's.

/** `https://acme.io/about` with stand-in `http://127.0.0.1:4010/sites` → `http://127.0.0.1:4010/sites/acme.io/about`. */
export function siteAddress(website: string, standInUrl: string | null): string {
  const target = /^[a-z][a-z0-9+.-]*:/i.test(website) ? website : `https://${website}`;
  if (!standInUrl) return target;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    // Left as it is: the page fetcher refuses it with its own reason.
    return target;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return target;
  const host = url.hostname.replace(/^www\./i, '');
  return `${standInUrl.replace(/\/+$/, '')}/${host}${url.pathname}${url.search}`;
}
