/** What a URL may show in a span: its origin and path, with no query value and no path segment that holds an e-mail address. */
export function scrubUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '[unparsable url]';
  }
  const path = url.pathname
    .split('/')
    .map((segment) => (/@|%40/i.test(segment) ? ':redacted' : segment))
    .join('/');
  const query = [...url.searchParams.keys()].map((name) => `${encodeURIComponent(name)}=:redacted`).join('&');
  return `${url.origin}${path}${query ? `?${query}` : ''}`;
}
