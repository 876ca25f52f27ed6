/** Where the e-mailed links arrive: the SMTP stand-in, read in-process. */
export interface Inbox {
  waitForMessage(to: string, matches?: (message: { subject: string; text: string }) => boolean): Promise<{ text: string }>;
}

export interface DashboardReply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * The dashboard's JSON API as a browser calls it: same origin, a cookie jar,
 * JSON bodies. For server-side tests and the bench; the browser tests drive the real pages.
 */
export class DashboardClient {
  private readonly cookies = new Map<string, string>();
  readonly baseUrl: string;
  /**
   * Each client is its own address (for an API started with AUTH_CLIENT_IP_HEADER=x-real-ip),
   * so tests that sign many people up do not share one rate-limit bucket.
   */
  private readonly clientAddress = `198.18.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 254) + 1}`;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<DashboardReply<T>> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      redirect: 'manual',
      headers: {
        origin: this.baseUrl,
        'x-real-ip': this.clientAddress,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookies.size > 0 ? { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {}),
        ...headers,
      },
      // Text and bytes go as they are (an uploaded file); anything else as JSON.
      body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      if (/max-age=0/i.test(cookie) || value.join('=') === '') this.cookies.delete(name!);
      else this.cookies.set(name!, value.join('='));
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  /** A download as its bytes (a BOM included), as a browser saves it. */
  async download(path: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, this.baseUrl), { headers: { 'x-real-ip': this.clientAddress, ...(cookie ? { cookie } : {}) } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  get = <T = any>(path: string) => this.call<T>('GET', path);
  post = <T = any>(path: string, body: unknown = {}) => this.call<T>('POST', path, body);
  put = <T = any>(path: string, body: unknown) => this.call<T>('PUT', path, body);

  /** Signs up, opens the e-mailed verification link (which signs in), and returns the signed-in client. */
  async signUpAndVerify(mail: Inbox, email: string, password = 'correct horse battery'): Promise<this> {
    const signUp = await this.post('/app/api/auth/sign-up/email', { email, password, name: email, callbackURL: '/app/verified' });
    if (signUp.status !== 200) throw new Error(`sign-up failed: ${signUp.status} ${JSON.stringify(signUp.body)}`);
    const message = await mail.waitForMessage(email, (m) => /verify/i.test(m.subject));
    const opened = await this.get(linkIn(message.text));
    if (opened.status !== 302) throw new Error(`verification link answered ${opened.status}`);
    return this;
  }
}

/** The first link in an e-mail's text part. */
export function linkIn(text: string): string {
  const match = /https?:\/\/\S+/.exec(text);
  if (!match) throw new Error(`no link in e-mail: ${text}`);
  return match[0];
}
