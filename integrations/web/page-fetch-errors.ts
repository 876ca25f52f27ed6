/** The page may not be fetched: the guard said no (SSRF, redirects, size). Retrying cannot help. */
export class PageFetchRefused extends Error {
  readonly reason: 'invalid_url' | 'unsupported_scheme' | 'private_address' | 'too_many_redirects' | 'too_large';

  constructor(reason: PageFetchRefused['reason'], message: string) {
    super(message);
    this.name = 'PageFetchRefused';
    this.reason = reason;
  }
}

/**
 * The page could not be fetched or is not a web page. `unreachable` covers no
 * answer, a refused and a reset connection alike, so that no one can tell an
 * open port from a closed one through us.
 */
export class PageFetchFailed extends Error {
  readonly reason: 'unreachable' | 'http_status' | 'not_html';

  constructor(reason: PageFetchFailed['reason'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PageFetchFailed';
    this.reason = reason;
  }
}
