// A Pipedrive-compatible server for development and tests, written from
// Pipedrive's documentation and OpenAPI files, never from our client:
// - OAuth: pipedrive.readme.io/docs/marketplace-oauth-authorization (GET /oauth/authorize,
//   POST /oauth/token with HTTP Basic client credentials, grant_type authorization_code
//   or refresh_token; the answer's access_token, refresh_token, expires_in 3600, scope,
//   api_domain; POST /oauth/revoke) and pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes
//   (400 "Invalid grant: …", "Invalid client: …"; codes expire after 5 minutes).
// - API v1 (developers.pipedrive.com/docs/api/v1, its OpenAPI file as mirrored in
//   amp-labs/connectors providers/pipedrive/openapi/specs.yaml): getCurrentUser
//   GET /v1/users/me; getPersonFields, addPersonField, deletePersonField
//   (/v1/personFields, `admin` scope to change); getFilters, addFilter, updateFilter
//   (/v1/filters: sandbox/pipedrive/filters.ts); getNotes, addNote (/v1/notes, content HTML).
// - API v2 (developers.pipedrive.com/docs/api/v2, its OpenAPI file, mirrored in the
//   same repository's providers/pipedrive/openapi/v2.yaml): getPersons GET /api/v2/persons
//   (filter_id, ids, sort_by id|update_time|add_time, limit ≤ 500, cursor →
//   additional_data.next_cursor), getPerson, updatePerson PATCH /api/v2/persons/{id}
//   (custom_fields by hash key, each in its field's type: a number is refused as text).
// - Limits and faults: sandbox/pipedrive/limits.ts.
// Both API versions answer under /api/v1 and /api/v2 of the company's domain
// (this server is the api_domain). Test and developer routes: /__admin (JSON), / (HTML).
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { bodyReaders, HttpError, jsonSender, listen, loseAnswer, sendHtml } from '../plain-http.ts';
import type { World } from '../provider-world/world.ts';
import { addField, addPerson, newCompany, newSecret, seedCompany, v1Time, v2Time, type Company, type Person, type PersonField, type SeedPerson } from './company.ts';
import { matches, parseConditions } from './filters.ts';
import { createLimiter, DOCUMENTED_LIMITS, tokenCostOf, ZPipedriveFaults, type Limits, type PipedriveFaults } from './limits.ts';
import { companyPage, consentPage, errorPage, personPage } from './pages.ts';

export interface PipedriveSandboxOptions {
  port?: number;
  host?: string;
  world: World;
  clientId?: string;
  clientSecret?: string;
  limits?: Partial<Limits>;
  /** How many provider-world people the seeded company holds. */
  people?: number;
  /** The scopes the app was registered with (a Marketplace app ticks them in the Developer Hub). */
  scopes?: string[];
}

export type CallKind = 'persons' | 'fields' | 'filters' | 'notes' | 'users';

export interface PipedriveCall {
  at: string;
  method: string;
  path: string;
  status: number;
  kind: CallKind | 'oauth' | 'admin' | 'page';
  /** Which access token the call carried (a hash's first characters). */
  token?: string;
}

export interface PipedriveSandbox {
  url: string;
  port: number;
  company(): Company;
  calls(): PipedriveCall[];
  setFaults(faults: Partial<PipedriveFaults>): void;
  /** Sets what the company has spent of today's token budget. */
  setDailySpent(tokens: number): void;
  close(): Promise<void>;
}

export const SANDBOX_CLIENT_ID = 'sandbox-pipedrive-client-id';
export const SANDBOX_CLIENT_SECRET = 'sandbox-pipedrive-client-secret';
export const SANDBOX_SCOPES = ['base', 'contacts:full', 'admin'];

const MAX_BODY_BYTES = 1024 * 1024;
const CODE_TTL_MS = 5 * 60_000;
const FIELD_TYPES = ['address', 'date', 'daterange', 'double', 'enum', 'monetary', 'org', 'people', 'phone', 'set', 'text', 'time', 'timerange', 'user', 'varchar', 'varchar_auto', 'visible_to'];
const PATCHABLE = ['name', 'owner_id', 'org_id', 'emails', 'phones', 'visible_to', 'label_ids', 'marketing_status', 'custom_fields', 'add_time', 'update_time'];

/** Pipedrive's error body: `{ success: false, error, error_info, data: null, additional_data: null }`. */
const apiError = (status: number, error: string) =>
  new HttpError(status, { success: false, error, error_info: 'Please check developers.pipedrive.com for more information about Pipedrive API.', data: null, additional_data: null });
const oauthError = (status: number, error: string, message: string) => new HttpError(status, { success: false, error, message });

// Bodies and replies in Pipedrive's own words: its errors, its spelling of the JSON content type.
const sendJson = jsonSender('application/json; charset=utf-8');
const { json: readJson, form: readForm } = bodyReaders({
  maxBytes: MAX_BODY_BYTES,
  tooLarge: () => apiError(413, 'Request body too large'),
  notJson: () => apiError(400, 'Invalid JSON in the request body'),
});

interface Grant {
  refreshToken: string;
  revoked: boolean;
  scopes: string[];
}

export async function startPipedriveSandbox(options: PipedriveSandboxOptions): Promise<PipedriveSandbox> {
  const clientId = options.clientId ?? SANDBOX_CLIENT_ID;
  const clientSecret = options.clientSecret ?? SANDBOX_CLIENT_SECRET;
  const scopes = options.scopes ?? SANDBOX_SCOPES;
  const limiter = createLimiter({ ...DOCUMENTED_LIMITS, ...options.limits });
  let company: Company;
  let codes = new Map<string, { redirectUri: string; expiresAt: number; used: boolean }>();
  let grants = new Map<string, Grant>();
  let accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  let faults: PipedriveFaults = ZPipedriveFaults.parse({});
  let calls: PipedriveCall[] = [];

  const reset = (people = options.people) => {
    company = seedCompany(options.world, new Date(), { people });
    codes = new Map();
    grants = new Map();
    accessTokens = new Map();
    faults = ZPipedriveFaults.parse({});
    calls = [];
    limiter.reset();
  };
  reset();

  const http = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return;
      if (error instanceof HttpError) return sendJson(res, error.status, error.body);
      sendJson(res, 500, { success: false, error: error instanceof Error ? error.message : String(error), data: null });
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const record = (kind: PipedriveCall['kind'], status: number) =>
      calls.push({ at: new Date().toISOString(), method, path, status, kind, ...(bearer !== null ? { token: createHash('sha256').update(bearer).digest('hex').slice(0, 12) } : {}) });

    if (method === 'GET' && path === '/') return sendHtml(res, companyPage(company, baseUrl()));
    const personPath = /^\/person\/(\d+)$/.exec(path);
    if (method === 'GET' && personPath) {
      const person = company.persons.get(Number(personPath[1]));
      if (!person) return sendHtml(res, '<!doctype html><html lang="en"><title>Not found</title><main><h1>No such person</h1><a href="/">Company</a></main></html>', 404);
      return sendHtml(res, personPage(company, person));
    }
    if (path.startsWith('/__admin')) return admin(req, res, url);
    if (method === 'GET' && path === '/oauth/authorize') return authorizePage(res, url);
    if (method === 'POST' && path === '/oauth/authorize/decision') return decision(res, await readForm(req));
    if (method === 'POST' && (path === '/oauth/token' || path === '/oauth/revoke')) {
      try {
        if (path === '/oauth/token') await token(req, res);
        else await revoke(req, res);
        record('oauth', res.statusCode);
      } catch (error) {
        record('oauth', error instanceof HttpError ? error.status : 500);
        throw error;
      }
      return;
    }
    if (!path.startsWith('/api/v1/') && !path.startsWith('/api/v2/')) return sendJson(res, 404, { success: false, error: 'Unknown method .', data: null });

    const kind = kindOf(path);
    try {
      const grant = authenticate(bearer);
      const hits = faults.on === 'all' || faults.on === kind;
      if (hits && faults.rateLimitNext > 0) {
        faults.rateLimitNext--;
        if (faults.rateLimitRetryAfterSeconds !== null) res.setHeader('retry-after', String(faults.rateLimitRetryAfterSeconds));
        for (const [name, value] of Object.entries({ 'x-ratelimit-limit': String(limiter.limits.burstPer2s), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' })) res.setHeader(name, value);
        throw apiError(429, 'Request over limit');
      }
      if (hits && faults.serverErrorNext > 0) {
        faults.serverErrorNext--;
        throw apiError(faults.serverErrorStatus, 'Service unavailable (sandbox fault)');
      }
      const burst = limiter.takeBurst(bearer!);
      const daily = limiter.spendDaily(company.companyId, tokenCostOf(method, path));
      for (const [name, value] of Object.entries({ ...burst.headers, ...daily.headers })) res.setHeader(name, value);
      if (!burst.allowed || !daily.allowed) throw apiError(429, 'Request over limit');
      if (hits && faults.answerLostNext > 0) {
        // The call is carried out, but its answer never arrives (logged with status 0).
        faults.answerLostNext--;
        loseAnswer(res);
        await api(req, res, url, grant, kind);
        record(kind, 0);
        return;
      }
      await api(req, res, url, grant, kind);
      record(kind, res.statusCode);
    } catch (error) {
      record(kind, error instanceof HttpError ? error.status : 500);
      throw error;
    }
  }

  function kindOf(path: string): CallKind {
    if (path.includes('/persons')) return 'persons';
    if (path.includes('/personFields')) return 'fields';
    if (path.includes('/filters')) return 'filters';
    if (path.includes('/notes')) return 'notes';
    return 'users';
  }

  function authenticate(bearer: string | null): Grant {
    const access = bearer ? accessTokens.get(bearer) : undefined;
    if (!access || access.grant.revoked || access.expiresAt <= Date.now()) throw new HttpError(401, { success: false, error: 'unauthorized access', errorCode: 401, error_info: 'Please check developers.pipedrive.com for more information about Pipedrive API.' });
    return access.grant;
  }

  const requireScope = (grant: Grant, ...any: string[]) => {
    if (!any.some((scope) => grant.scopes.includes(scope))) throw apiError(403, `Scope and URL mismatch: this call needs one of ${any.join(', ')}`);
  };

  // ---------------------------------------------------------------- OAuth

  function authorizePage(res: ServerResponse, url: URL) {
    const params = url.searchParams;
    const redirectUri = params.get('redirect_uri') ?? '';
    if (params.get('client_id') !== clientId) return sendHtml(res, errorPage('This app (client_id) is not known to this Pipedrive.'), 400);
    if (!/^https?:\/\//.test(redirectUri)) return sendHtml(res, errorPage('The redirect_uri is missing or not a URL.'), 400);
    return sendHtml(res, consentPage({ company, scopes, clientId, redirectUri, state: params.get('state') ?? '' }));
  }

  /** The consent's answer: a code (single use, 5 minutes) on "Allow and Install", `error=access_denied` on "Cancel". */
  function decision(res: ServerResponse, form: URLSearchParams) {
    const target = new URL(form.get('redirect_uri') ?? '');
    if (form.get('decision') !== 'approve') {
      target.searchParams.set('error', 'access_denied');
    } else {
      const code = newSecret('code-');
      codes.set(code, { redirectUri: form.get('redirect_uri') ?? '', expiresAt: Date.now() + CODE_TTL_MS, used: false });
      target.searchParams.set('code', code);
    }
    const state = form.get('state');
    if (state) target.searchParams.set('state', state);
    res.writeHead(302, { location: target.toString() }).end();
  }

  async function clientOf(req: IncomingMessage) {
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!basic) throw oauthError(401, 'invalid_client', 'Invalid client: cannot retrieve client credentials');
    const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    if (id !== clientId || secret !== clientSecret) throw oauthError(400, 'invalid_client', 'Invalid client: client is invalid');
  }

  async function token(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    await clientOf(req);
    const grantType = form.get('grant_type');
    let grant: Grant;
    if (!grantType) throw oauthError(400, 'invalid_request', 'Missing parameter: grant_type');
    if (grantType === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.used) throw oauthError(400, 'invalid_grant', 'Invalid grant: authorization_code is invalid');
      if (code.expiresAt < Date.now()) throw oauthError(400, 'invalid_grant', 'Invalid grant: authorization_code has expired');
      if (code.redirectUri !== form.get('redirect_uri')) throw oauthError(400, 'invalid_request', 'Invalid request: redirect_uri is invalid');
      code.used = true;
      grant = { refreshToken: newSecret('rt-'), revoked: false, scopes };
      grants.set(grant.refreshToken, grant);
    } else if (grantType === 'refresh_token') {
      const known = grants.get(form.get('refresh_token') ?? '');
      if (!known || known.revoked) throw oauthError(400, 'invalid_grant', 'Invalid grant: refresh_token is invalid');
      grant = known;
    } else {
      throw oauthError(400, 'unsupported_grant_type', 'Unsupported grant type: grant_type is invalid');
    }
    const access = newSecret('at-');
    accessTokens.set(access, { grant, expiresAt: Date.now() + faults.accessTokenTtlSeconds * 1000 });
    return sendJson(res, 200, {
      access_token: access, token_type: 'Bearer', expires_in: faults.accessTokenTtlSeconds, refresh_token: grant.refreshToken, scope: grant.scopes.join(','), api_domain: baseUrl(),
    });
  }

  /** Revoking the refresh token uninstalls the app: it and every access token made from it stop working. */
  async function revoke(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    await clientOf(req);
    const tokenText = form.get('token') ?? '';
    const grant = grants.get(tokenText) ?? accessTokens.get(tokenText)?.grant;
    if (!grant) throw oauthError(400, 'invalid_grant', 'Invalid grant: refresh_token is invalid');
    grant.revoked = true;
    return sendJson(res, 200, { success: true });
  }

  // ---------------------------------------------------------------- API

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, grant: Grant, kind: CallKind) {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const now = new Date();
    if (method === 'GET' && path === '/api/v1/users/me') {
      requireScope(grant, 'base');
      const { user } = company;
      return sendJson(res, 200, { success: true, data: {
        id: user.id, name: user.name, email: user.email, default_currency: 'EUR', locale: 'en_US', lang: 1, activated: true, is_admin: user.isAdmin ? 1 : 0, active_flag: true,
        timezone_name: 'UTC', is_you: true, company_id: company.companyId, company_name: 'Sandbox Company', company_domain: company.domain, company_country: 'DE',
      } });
    }
    if (kind === 'fields') return fieldsApi(req, res, url, grant, now);
    if (kind === 'filters') return filtersApi(req, res, url, grant, now);
    if (kind === 'notes') return notesApi(req, res, url, grant, now);
    if (kind === 'persons' && path.startsWith('/api/v2/')) return personsApi(req, res, url, grant, now);
    throw apiError(404, `Unknown method ${method} ${path}`);
  }

  const page = <T>(items: T[], url: URL) => {
    const start = Number(url.searchParams.get('start') ?? 0);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 500);
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(limit) || limit < 1) throw apiError(400, 'start and limit must be non-negative integers');
    const slice = items.slice(start, start + limit);
    const more = start + limit < items.length;
    return { success: true, data: slice, additional_data: { pagination: { start, limit, more_items_in_collection: more, ...(more ? { next_start: start + limit } : {}) } } };
  };

  async function fieldsApi(req: IncomingMessage, res: ServerResponse, url: URL, grant: Grant, now: Date) {
    const method = req.method ?? 'GET';
    const live = () => [...company.fields.values()].filter((field) => field.active_flag);
    if (url.pathname === '/api/v1/personFields' && method === 'GET') {
      requireScope(grant, 'contacts:read', 'contacts:full', 'admin');
      return sendJson(res, 200, page(live().map(fieldView), url));
    }
    if (url.pathname === '/api/v1/personFields' && method === 'POST') {
      requireScope(grant, 'admin');
      if (!company.user.isAdmin) throw apiError(403, 'You do not have permissions to add fields');
      const body = z.object({
        name: z.string().trim().min(1), field_type: z.enum(FIELD_TYPES as [string, ...string[]]),
        options: z.array(z.object({ label: z.string().trim().min(1) })).optional(), add_visible_flag: z.boolean().optional(),
      }).strict().safeParse(await readJson(req));
      if (!body.success) throw apiError(400, `Invalid field: ${z.prettifyError(body.error)}`);
      const needsOptions = ['enum', 'set'].includes(body.data.field_type);
      if (needsOptions !== (body.data.options !== undefined && body.data.options.length > 0)) throw apiError(400, 'options are required for enum and set fields, and only for them');
      return sendJson(res, 200, { success: true, data: fieldView(addField(company, { name: body.data.name, field_type: body.data.field_type, options: body.data.options ?? null }, now)) });
    }
    const one = /^\/api\/v1\/personFields\/(\d+)$/.exec(url.pathname);
    const field = one ? company.fields.get(Number(one[1])) : undefined;
    if (one && (!field || !field.active_flag)) throw apiError(404, 'Field not found');
    if (field && method === 'GET') return sendJson(res, 200, { success: true, data: fieldView(field) });
    if (field && method === 'DELETE') {
      requireScope(grant, 'admin');
      if (!company.user.isAdmin) throw apiError(403, 'You do not have permissions to delete fields');
      if (!field.edit_flag) throw apiError(400, 'This field cannot be deleted');
      field.active_flag = false;
      for (const person of company.persons.values()) delete person.custom[field.key];
      return sendJson(res, 200, { success: true, data: { id: field.id } });
    }
    throw apiError(404, `Unknown method ${method} ${url.pathname}`);
  }

  async function filtersApi(req: IncomingMessage, res: ServerResponse, url: URL, grant: Grant, now: Date) {
    const method = req.method ?? 'GET';
    if (url.pathname === '/api/v1/filters' && method === 'GET') {
      requireScope(grant, 'contacts:read', 'contacts:full', 'deals:read', 'deals:full', 'activities:read', 'activities:full');
      const type = url.searchParams.get('type');
      return sendJson(res, 200, { success: true, data: [...company.filters.values()].filter((filter) => !type || filter.type === type).map(filterView) });
    }
    if (url.pathname === '/api/v1/filters' && method === 'POST') {
      requireScope(grant, 'contacts:full', 'deals:full', 'activities:full');
      const body = z.object({ name: z.string().trim().min(1), type: z.enum(['deals', 'leads', 'org', 'people', 'products', 'activity', 'projects']), conditions: z.record(z.string(), z.unknown()) })
        .safeParse(await readJson(req));
      if (!body.success) throw apiError(400, `Invalid filter: ${z.prettifyError(body.error)}`);
      const parsed = parseConditions(company, body.data.conditions);
      if ('error' in parsed) throw apiError(400, parsed.error);
      const id = company.nextId.filter++;
      company.filters.set(id, { id, name: body.data.name, type: body.data.type, conditions: body.data.conditions, user_id: company.user.id, add_time: v1Time(now) });
      return sendJson(res, 200, { success: true, data: filterView(company.filters.get(id)!) });
    }
    const one = /^\/api\/v1\/filters\/(\d+)$/.exec(url.pathname);
    const filter = one ? company.filters.get(Number(one[1])) : undefined;
    if (one && !filter) throw apiError(404, 'Filter not found');
    if (filter && method === 'GET') return sendJson(res, 200, { success: true, data: filterView(filter) });
    if (filter && method === 'PUT') {
      requireScope(grant, 'contacts:full', 'deals:full', 'activities:full');
      const body = z.object({ name: z.string().trim().min(1).optional(), conditions: z.record(z.string(), z.unknown()) }).safeParse(await readJson(req));
      if (!body.success) throw apiError(400, `Invalid filter: ${z.prettifyError(body.error)}`);
      const parsed = parseConditions(company, body.data.conditions);
      if ('error' in parsed) throw apiError(400, parsed.error);
      filter.conditions = body.data.conditions;
      if (body.data.name) filter.name = body.data.name;
      return sendJson(res, 200, { success: true, data: filterView(filter) });
    }
    throw apiError(404, `Unknown method ${method} ${url.pathname}`);
  }

  async function notesApi(req: IncomingMessage, res: ServerResponse, url: URL, grant: Grant, now: Date) {
    const method = req.method ?? 'GET';
    if (url.pathname === '/api/v1/notes' && method === 'POST') {
      requireScope(grant, 'contacts:full', 'deals:full');
      const body = z.object({ content: z.string().min(1), person_id: z.number().int().optional(), deal_id: z.number().int().optional(), org_id: z.number().int().optional(), lead_id: z.string().optional(), add_time: z.string().optional() })
        .safeParse(await readJson(req));
      if (!body.success) throw apiError(400, `Invalid note: ${z.prettifyError(body.error)}`);
      if (body.data.person_id === undefined) throw apiError(400, 'A note needs one of deal_id, person_id, org_id or lead_id (the stand-in keeps persons only)');
      if (!company.persons.has(body.data.person_id)) throw apiError(400, `Person ${body.data.person_id} not found`);
      if (body.data.add_time !== undefined && !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(body.data.add_time)) throw apiError(400, 'add_time must be YYYY-MM-DD HH:MM:SS');
      const id = company.nextId.note++;
      // "Subject to sanitization on the back-end": scripts go.
      const content = body.data.content.replace(/<script[\s\S]*?<\/script>/gi, '');
      company.notes.set(id, { id, content, person_id: body.data.person_id, user_id: company.user.id, add_time: body.data.add_time ?? v1Time(now), update_time: v1Time(now) });
      return sendJson(res, 200, { success: true, data: noteView(company.notes.get(id)!) });
    }
    if (url.pathname === '/api/v1/notes' && method === 'GET') {
      requireScope(grant, 'contacts:read', 'contacts:full', 'deals:read', 'deals:full');
      const personId = url.searchParams.get('person_id');
      const startDate = url.searchParams.get('start_date');
      if (startDate !== null && !/^\d{4}-\d{2}-\d{2}$/.test(startDate)) throw apiError(400, 'start_date must be YYYY-MM-DD');
      const [sortField, sortMode] = (url.searchParams.get('sort') ?? 'id ASC').split(' ');
      if (!['id', 'user_id', 'deal_id', 'person_id', 'org_id', 'content', 'add_time', 'update_time'].includes(sortField ?? '')) throw apiError(400, `sort ${sortField} is not supported`);
      const notes = [...company.notes.values()]
        .filter((note) => (personId === null || note.person_id === Number(personId)) && (startDate === null || note.add_time.slice(0, 10) >= startDate))
        .sort((a, b) => String(a[sortField as 'id']).localeCompare(String(b[sortField as 'id']), 'en', { numeric: true }) * (sortMode?.toUpperCase() === 'DESC' ? -1 : 1));
      return sendJson(res, 200, page(notes.map(noteView), url));
    }
    throw apiError(404, `Unknown method ${method} ${url.pathname}`);
  }

  async function personsApi(req: IncomingMessage, res: ServerResponse, url: URL, grant: Grant, now: Date) {
    const method = req.method ?? 'GET';
    if (url.pathname === '/api/v2/persons' && method === 'GET') {
      requireScope(grant, 'contacts:read', 'contacts:full');
      const params = url.searchParams;
      const limit = Number(params.get('limit') ?? 100);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw apiError(400, 'limit must be an integer from 1 to 500');
      const sortBy = params.get('sort_by') ?? 'id';
      if (!['id', 'update_time', 'add_time'].includes(sortBy)) throw apiError(400, 'sort_by must be one of id, update_time, add_time');
      const direction = params.get('sort_direction') ?? 'asc';
      let persons = [...company.persons.values()].filter((person) => !person.is_deleted);
      if (params.get('filter_id') !== null) {
        const filter = company.filters.get(Number(params.get('filter_id')));
        if (!filter || filter.type !== 'people') throw apiError(404, 'Filter not found');
        const parsed = parseConditions(company, filter.conditions);
        if ('error' in parsed) throw apiError(400, parsed.error);
        persons = persons.filter((person) => matches(company, person, parsed.groups));
      }
      if (params.get('ids') !== null) {
        const ids = params.get('ids')!.split(',').map(Number);
        if (ids.length > 100 || ids.some((id) => !Number.isInteger(id))) throw apiError(400, 'ids must be up to 100 comma-separated integers');
        persons = persons.filter((person) => ids.includes(person.id));
      }
      const key = (person: Person) => (sortBy === 'id' ? person.id : person[sortBy as 'add_time']);
      persons.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id) * (direction === 'desc' ? -1 : 1));
      let offset = 0;
      const cursor = params.get('cursor');
      if (cursor) {
        try {
          offset = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset: number }).offset;
        } catch {
          throw apiError(400, 'cursor is invalid');
        }
      }
      const slice = persons.slice(offset, offset + limit);
      const next = offset + limit < persons.length ? Buffer.from(JSON.stringify({ offset: offset + limit })).toString('base64url') : null;
      return sendJson(res, 200, { success: true, data: slice.map(personView), additional_data: { next_cursor: next } });
    }
    const one = /^\/api\/v2\/persons\/(\d+)$/.exec(url.pathname);
    const person = one ? company.persons.get(Number(one[1])) : undefined;
    if (one && !person) throw apiError(404, 'Person not found');
    // A deleted person: 410 Gone, "old resource permanently unavailable" (pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes).
    if (person?.is_deleted) throw apiError(410, 'Person has been deleted');
    if (person && method === 'GET') {
      requireScope(grant, 'contacts:read', 'contacts:full');
      return sendJson(res, 200, { success: true, data: personView(person) });
    }
    if (person && method === 'PATCH') {
      requireScope(grant, 'contacts:full');
      const body = (await readJson(req)) as Record<string, unknown> | null;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw apiError(400, 'The body must be a JSON object');
      const unknown = Object.keys(body).filter((name) => !PATCHABLE.includes(name));
      if (unknown.length > 0) throw apiError(400, `Unknown parameters: ${unknown.join(', ')}`);
      if (body.name !== undefined && (typeof body.name !== 'string' || body.name.trim() === '')) throw apiError(400, 'name must be a non-empty string');
      const custom = (body.custom_fields ?? {}) as Record<string, unknown>;
      if (typeof custom !== 'object' || Array.isArray(custom)) throw apiError(400, 'custom_fields must be an object');
      const checked = Object.entries(custom).map(([fieldKey, value]) => [fieldKey, customValue(fieldKey, value)] as const);
      for (const [fieldKey, value] of checked) {
        if (value === null) delete person.custom[fieldKey];
        else person.custom[fieldKey] = value;
      }
      if (typeof body.name === 'string') person.name = body.name;
      person.update_time = v2Time(now);
      return sendJson(res, 200, { success: true, data: personView(person) });
    }
    throw apiError(404, `Unknown method ${method} ${url.pathname}`);
  }

  /** A custom field's value checked against its type, as API v2 checks it: a number must be a JSON number, an option its id. */
  function customValue(fieldKey: string, value: unknown): unknown {
    const field = [...company.fields.values()].find((each) => each.key === fieldKey && each.active_flag && each.edit_flag);
    if (!field) throw apiError(400, `Custom field ${fieldKey} does not exist`);
    if (value === null) return null;
    const refuse = (expected: string) => apiError(400, `custom_fields.${fieldKey} (${field.name}) must be ${expected}, not ${JSON.stringify(value).slice(0, 60)}`);
    switch (field.field_type) {
      case 'double': case 'int':
        if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse('a number');
        return value;
      case 'monetary': {
        const money = value as { value?: unknown; currency?: unknown };
        if (typeof money !== 'object' || typeof money.value !== 'number' || typeof money.currency !== 'string') throw refuse('{ value: number, currency }');
        return { value: money.value, currency: money.currency };
      }
      case 'enum':
        if (typeof value !== 'number' || !field.options?.some((option) => option.id === value)) throw refuse(`one of its option ids (${field.options?.map((option) => option.id).join(', ')})`);
        return value;
      case 'date':
        if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw refuse('a date YYYY-MM-DD');
        return value;
      case 'varchar':
        if (typeof value !== 'string' || value.length > 255) throw refuse('a string of at most 255 characters');
        return value;
      case 'text':
        if (typeof value !== 'string' || value.length > 65_535) throw refuse('a string of at most 65,535 characters');
        return value;
      default:
        throw apiError(400, `custom_fields.${fieldKey}: the stand-in does not write ${field.field_type} fields`);
    }
  }

  function personView(person: Person) {
    const custom = Object.fromEntries([...company.fields.values()].filter((field) => field.edit_flag && field.active_flag).map((field) => [field.key, person.custom[field.key] ?? null]));
    return {
      id: person.id, name: person.name, first_name: person.first_name, last_name: person.last_name, owner_id: person.owner_id, org_id: null,
      add_time: person.add_time, update_time: person.update_time, emails: person.emails, phones: [], is_deleted: person.is_deleted ?? false, visible_to: 3, label_ids: [], picture_id: null, custom_fields: custom,
    };
  }

  // ---------------------------------------------------------------- admin (tests and developers)

  async function admin(req: IncomingMessage, res: ServerResponse, url: URL) {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/__admin/calls') return sendJson(res, 200, { calls });
    if (method === 'GET' && path === '/__admin/state') return sendJson(res, 200, stateJson());
    if (method === 'POST' && path === '/__admin/reset') {
      reset((((await readJson(req)) ?? {}) as { people?: number }).people);
      return sendJson(res, 200, { reset: true });
    }
    if (method === 'POST' && path === '/__admin/faults') {
      const parsed = ZPipedriveFaults.partial().safeParse(await readJson(req));
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      faults = { ...faults, ...parsed.data };
      return sendJson(res, 200, faults);
    }
    // Adds persons: { persons: SeedPerson[] } (custom values by field name).
    if (method === 'POST' && path === '/__admin/persons') {
      const body = ((await readJson(req)) ?? {}) as { persons?: SeedPerson[] };
      try {
        return sendJson(res, 201, { ids: (body.persons ?? []).map((seed) => addPerson(company, seed, new Date()).id) });
      } catch (error) {
        return sendJson(res, 400, { error: (error as Error).message });
      }
    }
    // Deletes persons as a user would: { ids: number[] }.
    if (method === 'POST' && path === '/__admin/persons/delete') {
      const ids = ((((await readJson(req)) ?? {}) as { ids?: number[] }).ids ?? []).filter((id) => company.persons.has(id));
      for (const id of ids) company.persons.get(id)!.is_deleted = true;
      return sendJson(res, 200, { deleted: ids });
    }
    // The connecting user is not an admin (no field may be made), or is again.
    if (method === 'POST' && path === '/__admin/user') {
      const body = ((await readJson(req)) ?? {}) as { isAdmin?: boolean };
      company.user.isAdmin = body.isAdmin ?? true;
      return sendJson(res, 200, { isAdmin: company.user.isAdmin });
    }
    if (method === 'POST' && path === '/__admin/daily-spent') {
      limiter.setSpent(company.companyId, Number((((await readJson(req)) ?? {}) as { tokens?: number }).tokens ?? 0));
      return sendJson(res, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__admin/expire-access-tokens') {
      for (const access of accessTokens.values()) access.expiresAt = Date.now() - 1000;
      return sendJson(res, 200, { expired: accessTokens.size });
    }
    // Answers the consent as a user would, for API tests: the redirect the consent form's buttons give.
    if (method === 'GET' && path === '/__admin/approve') {
      const target = new URL(url.searchParams.get('authorize_url') ?? '');
      if (target.searchParams.get('client_id') !== clientId) return sendJson(res, 400, { error: 'unknown client_id' });
      return decision(res, new URLSearchParams({
        decision: url.searchParams.get('decision') ?? 'approve', redirect_uri: target.searchParams.get('redirect_uri') ?? '', state: target.searchParams.get('state') ?? '',
      }));
    }
    return sendJson(res, 404, { error: `no such admin route: ${method} ${path}` });
  }

  function stateJson() {
    return {
      companyId: company.companyId,
      user: company.user,
      fields: [...company.fields.values()].filter((field) => field.edit_flag && field.active_flag).map(fieldView),
      persons: [...company.persons.values()].map(personView),
      notes: [...company.notes.values()].map(noteView),
      filters: [...company.filters.values()].map(filterView),
      grants: [...grants.values()].map((grant) => ({ revoked: grant.revoked, scopes: grant.scopes })),
    };
  }

  const listening = await listen(http, options.port, options.host);
  const baseUrl = () => listening.url;
  return {
    ...listening,
    company: () => company,
    calls: () => calls,
    setFaults: (next) => void (faults = { ...faults, ...ZPipedriveFaults.partial().parse(next) }),
    setDailySpent: (tokens) => limiter.setSpent(company.companyId, tokens),
  };
}

const fieldView = (field: PersonField) => ({ ...field, update_time: field.add_time, important_flag: false, bulk_edit_allowed: field.edit_flag, filtering_allowed: true });
const filterView = (filter: Company['filters'] extends Map<number, infer F> ? F : never) => ({ ...filter, active_flag: true, visible_to: '1', update_time: filter.add_time, custom_view_id: null });
const noteView = (note: Company['notes'] extends Map<number, infer N> ? N : never) => ({ ...note, active_flag: true, deal_id: null, org_id: null, lead_id: null, pinned_to_person_flag: false });
