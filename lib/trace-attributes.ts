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

/**
 * What a span may show of an SQL statement: every string literal, dollar-quoted
 * string and number replaced by `?`. MikroORM sends its statements with the
 * values written in (e-mail addresses, key hashes, reply JSON), so leaving
 * out the driver's parameters is not enough.
 */
export function scrubSql(sql: string): string {
  return sql
    .replace(/\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$/g, '?')
    .replace(/[EeBbXxNn]?'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$".])-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g, '?');
}
