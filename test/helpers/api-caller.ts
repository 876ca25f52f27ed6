export interface ApiReply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ApiCaller {
  post(path: string, body: unknown, options?: { key?: string | null; headers?: Record<string, string>; rawBody?: string | Buffer }): Promise<ApiReply>;
  get(path: string, options?: { key?: string | null; headers?: Record<string, string> }): Promise<ApiReply>;
  /** POST /research with a key. */
  research(key: string, body: unknown, headers?: Record<string, string>): Promise<ApiReply>;
  status(key: string, researchId: string, waitSeconds?: number): Promise<ApiReply>;
  /** Polls (with the `wait` extension) until the job is completed or failed. */
  waitForEnd(key: string, researchId: string, timeoutMs?: number): Promise<ApiReply>;
}

/** Talks to the API over real HTTP, as a client would. */
export function createApiCaller(baseUrl: string): ApiCaller {
  async function call(method: string, path: string, init: { key?: string | null; headers?: Record<string, string>; body?: string | Buffer }): Promise<ApiReply> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    if (init.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: init.body as BodyInit | undefined });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // left as text: the test will say what it expected
    }
    return { status: response.status, body, headers: response.headers };
  }

  const caller: ApiCaller = {
    post: (path, body, options = {}) =>
      call('POST', path, { key: options.key, headers: options.headers, body: options.rawBody ?? JSON.stringify(body) }),
    get: (path, options = {}) => call('GET', path, options),
    research: (key, body, headers) => caller.post('/research', body, { key, headers }),
    status: (key, researchId, waitSeconds) =>
      caller.get(`/research-status/${encodeURIComponent(researchId)}${waitSeconds ? `?wait=${waitSeconds}` : ''}`, { key }),
    async waitForEnd(key, researchId, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reply = await caller.status(key, researchId, 5);
        if (reply.status !== 200 || ['completed', 'failed'].includes(reply.body.status) || Date.now() > deadline) return reply;
      }
    },
  };
  return caller;
}
