// A Salesforce-compatible server for development and tests, written by hand
// from Salesforce's own documentation (there is no public OpenAPI file),
// never from our client:
// - OAuth 2.0 web server flow with PKCE: help.salesforce.com "OAuth 2.0 Web
//   Server Flow for Web App Integration" (id=remoteaccess_oauth_web_server_flow.htm):
//   GET /services/oauth2/authorize (response_type=code, client_id, redirect_uri,
//   state, scope, code_challenge = base64url(SHA-256(verifier))); POST
//   /services/oauth2/token (authorization_code with code_verifier: a wrong
//   verifier is invalid_request, a missing one invalid_grant; refresh_token,
//   whose answer carries no new refresh token); the reply's access_token,
//   refresh_token, signature (base64 HMAC-SHA256 of id + issued_at keyed by
//   the client secret), scope, instance_url, id (the identity URL
//   …/id/{orgId}/{userId}), token_type, issued_at.
// - Revoke: "Revoke OAuth Tokens Programmatically" (POST /services/oauth2/revoke,
//   form `token`; 200, or 400 invalid_token). UserInfo and the identity URL:
//   "Identity URLs" and "UserInfo Endpoint" (help.salesforce.com).
// - REST API Developer Guide (developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/):
//   Query (resources_query.htm: totalSize, done, records, nextRecordsUrl;
//   Sforce-Query-Options batchSize 200–2000), sObject Describe, sObject
//   Collections create / update / retrieve (≤ 200 records, allOrNone, a
//   SaveResult per record in order), sObject Blob Retrieve (a base64 field's
//   body), Limits (resources_limits.htm), the Limit Info header, and Status
//   Codes and Error Responses (errors as [{ message, errorCode, fields }];
//   401 INVALID_SESSION_ID). SOQL: sandbox/salesforce/soql.ts. Records:
//   sandbox/salesforce/records.ts. Tooling CustomField: sandbox/salesforce/tooling.ts.
// Test and developer routes live under /__admin (JSON) and / (an HTML page).
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { bodyReaders, HttpError, jsonSender, listen, loseAnswer, sendHtml } from '../plain-http.ts';
import type { World } from '../provider-world/world.ts';
import { hits, requestLimitMessage, sfErrors, ZSalesforceFaults, type CallKind, type SalesforceFaults } from './faults.ts';
import { addRecord, newSecret, seedOrg, type AccessToken, type AuthCode, type Org, type RefreshToken, type SObjectRecord } from './org.ts';
import { consentPage, orgPage, recordPage } from './pages.ts';
import { createOne, fieldOf, isVisible, unknownField, updateOne, type SaveResult } from './records.ts';
import { checkQuery, filtersOnLinkIds, matches, parseSoql, SoqlError, sortRecords } from './soql.ts';
import { createCustomField, ToolingError } from './tooling.ts';

export interface SalesforceSandboxOptions {
  port?: number;
  host?: string;
  world: World;
  clientId?: string;
  clientSecret?: string;
  /** How many provider-world people the seeded org holds (as Contacts and as Leads). */
  people?: number;
}

export interface SalesforceSandbox {
  url: string;
  port: number;
  org(): Org;
  setFaults(faults: Partial<SalesforceFaults>): void;
  close(): Promise<void>;
}

export const SANDBOX_CLIENT_ID = 'sandbox-salesforce-consumer-key';
export const SANDBOX_CLIENT_SECRET = 'sandbox-salesforce-consumer-secret';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const AUTH_CODE_TTL_MS = 15 * 60_000;
/** sObject Collections: "The list can contain up to 200 objects." */
const MAX_COLLECTION = 200;
/** API versions this stand-in answers (Winter '21 to Spring '26). */
const VERSION = /^\/services\/data\/v(\d{2})\.0(\/.*)?$/;

const sfError = (status: number, errorCode: string, message: string, fields?: string[]) => new HttpError(status, sfErrors(errorCode, message, fields));
const oauthError = (status: number, error: string, description: string) => new HttpError(status, { error, error_description: description });

// Bodies and replies in Salesforce's own words: its errors, its spelling of the JSON content type.
const sendJson = jsonSender('application/json;charset=UTF-8');
const { json: readJson, form: readForm } = bodyReaders({
  maxBytes: MAX_BODY_BYTES,
  tooLarge: () => sfError(413, 'REQUEST_ENTITY_TOO_LARGE', 'Request body too large'),
  notJson: () => sfError(400, 'JSON_PARSER_ERROR', 'Unexpected character: was expecting a JSON value'),
});

const ZCollection = z.object({ allOrNone: z.boolean().optional(), records: z.array(z.record(z.string(), z.unknown())) });
const ZRetrieve = z.object({ ids: z.array(z.string()).min(1), fields: z.array(z.string()).min(1) });

export async function startSalesforceSandbox(options: SalesforceSandboxOptions): Promise<SalesforceSandbox> {
  const clientId = options.clientId ?? SANDBOX_CLIENT_ID;
  const clientSecret = options.clientSecret ?? SANDBOX_CLIENT_SECRET;
  let org: Org;
  let codes = new Map<string, AuthCode>();
  let refreshTokens = new Map<string, RefreshToken>();
  let accessTokens = new Map<string, AccessToken>();
  let cursors = new Map<string, { records: unknown[]; batch: number }>();
  let faults: SalesforceFaults = ZSalesforceFaults.parse({});
  let calls: Array<{ at: string; method: string; path: string; status: number; kind: CallKind | 'admin' | 'page' | 'oauth'; token?: string }> = [];

  const reset = (people = options.people) => {
    org = seedOrg(options.world, new Date(), { people });
    codes = new Map();
    refreshTokens = new Map();
    accessTokens = new Map();
    cursors = new Map();
    faults = ZSalesforceFaults.parse({});
    calls = [];
  };
  reset();

  const http = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return;
      if (error instanceof HttpError) return sendJson(res, error.status, error.body);
      sendJson(res, 500, sfErrors('UNKNOWN_EXCEPTION', error instanceof Error ? error.message : String(error)));
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const bearer = tokenLabel(req);
    const record = (kind: (typeof calls)[number]['kind'], status: number) =>
      calls.push({ at: new Date().toISOString(), method, path, status, kind, ...(bearer !== null && kind !== 'oauth' ? { token: bearer } : {}) });

    if (method === 'GET' && path === '/') return sendHtml(res, orgPage(org, baseUrl()));
    const recordView = /^\/lightning\/r\/(Contact|Lead)\/([A-Za-z0-9]{15,18})\/view$/.exec(path);
    if (method === 'GET' && recordView) {
      const found = org.objects.get(recordView[1]!)!.records.get(recordView[2]!);
      if (!found) return sendHtml(res, '<!doctype html><html lang="en"><title>Not found</title><main><h1>No such record</h1><a href="/">Org</a></main></html>', 404);
      return sendHtml(res, recordPage(org, recordView[1]!, found));
    }
    if (path.startsWith('/__admin')) return admin(req, res, url);

    // OAuth.
    if (method === 'GET' && path === '/services/oauth2/authorize') return authorizePage(res, url);
    if (method === 'POST' && path === '/services/oauth2/authorize/decision') return authorizeDecision(await readForm(req), res);
    if (method === 'POST' && path === '/services/oauth2/token') {
      if (hits(faults, 'token') && faults.serverErrorNext > 0 && faults.on === 'token') {
        faults.serverErrorNext--;
        record('oauth', faults.serverErrorStatus);
        return sendJson(res, faults.serverErrorStatus, { error: 'server_error', error_description: 'sandbox fault' });
      }
      const status = await token(req, res);
      return record('oauth', status);
    }
    if (method === 'POST' && path === '/services/oauth2/revoke') {
      const status = revoke((await readForm(req)).get('token') ?? '', res);
      return record('oauth', status);
    }
    if (method === 'GET' && (path === '/services/oauth2/userinfo' || /^\/id\/[^/]+\/[^/]+$/.test(path))) {
      authenticate(req);
      return sendJson(res, 200, path.startsWith('/id/') ? identity() : userinfo());
    }

    // The REST API.
    const versioned = VERSION.exec(path);
    const kind = kindOf(method, versioned?.[2] ?? path);
    try {
      if (!versioned || Number(versioned[1]) < 50 || Number(versioned[1]) > 66) throw sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
      authenticate(req);
    } catch (error) {
      record(kind, error instanceof HttpError ? error.status : 500);
      throw error;
    }
    // Every REST call counts against the org's allowance and says so.
    faults.apiUsed++;
    res.setHeader('Sforce-Limit-Info', `api-usage=${Math.min(faults.apiUsed, faults.apiLimit)}/${faults.apiLimit}`);
    const fault = takeFault(kind);
    if (fault) {
      record(kind, fault.status);
      if (fault.retryAfter) res.setHeader('Retry-After', String(fault.retryAfter));
      return sendJson(res, fault.status, fault.body);
    }
    // The call is carried out, but its answer never arrives (logged with status 0).
    const isAnswerLost = faults.answerLostNext > 0 && hits(faults, kind);
    if (isAnswerLost) {
      faults.answerLostNext--;
      loseAnswer(res);
    }
    try {
      await data(req, res, url, `v${versioned[1]}.0`, versioned[2] ?? '/');
      record(kind, isAnswerLost ? 0 : res.statusCode);
    } catch (error) {
      record(kind, error instanceof HttpError ? error.status : 500);
      throw error;
    }
  }

  function kindOf(method: string, rest: string): CallKind {
    if (rest.startsWith('/query')) return 'query';
    if (rest.startsWith('/tooling')) return 'tooling';
    if (rest.endsWith('/describe')) return 'describe';
    if (rest.startsWith('/composite/sobjects') || rest.startsWith('/sobjects')) return method === 'GET' || (method === 'POST' && rest !== '/composite/sobjects') ? 'query' : 'write';
    return 'other';
  }

  function takeFault(kind: CallKind): { status: number; body: unknown; retryAfter?: number } | null {
    if (faults.apiUsed > faults.apiLimit) return { status: 403, body: sfErrors('REQUEST_LIMIT_EXCEEDED', requestLimitMessage('total', faults.apiUsed, faults.apiLimit)) };
    if (!hits(faults, kind)) return null;
    if (faults.requestLimitNext > 0) {
      faults.requestLimitNext--;
      return { status: 403, body: sfErrors('REQUEST_LIMIT_EXCEEDED', requestLimitMessage(faults.requestLimitKind, faults.apiUsed, faults.apiLimit)) };
    }
    if (faults.tooManyRequestsNext > 0) {
      faults.tooManyRequestsNext--;
      return { status: 429, body: sfErrors('REQUEST_LIMIT_EXCEEDED', 'Too many requests'), retryAfter: 1 };
    }
    if (faults.serverErrorNext > 0) {
      faults.serverErrorNext--;
      return { status: faults.serverErrorStatus, body: sfErrors('SERVER_UNAVAILABLE', 'Service unavailable (sandbox fault)') };
    }
    return null;
  }

  function authenticate(req: IncomingMessage): AccessToken {
    const bearer = /^(?:Bearer|OAuth) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const access = bearer ? accessTokens.get(bearer) : undefined;
    if (!access || access.revoked || access.expiresAt <= Date.now()) throw sfError(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
    return access;
  }

  // ---------------------------------------------------------------- OAuth

  function authorizePage(res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('response_type') !== 'code') return sendHtml(res, consentPage({ error: 'error=unsupported_response_type: response type not supported' }), 400);
    if (params.get('client_id') !== clientId) return sendHtml(res, consentPage({ error: 'error=invalid_client_id: client identifier invalid' }), 400);
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!/^https?:\/\//.test(redirectUri)) return sendHtml(res, consentPage({ error: 'error=redirect_uri_mismatch: redirect_uri must match configuration' }), 400);
    const method = params.get('code_challenge_method');
    if (method !== null && method !== 'S256') return sendHtml(res, consentPage({ error: 'error=invalid_request: invalid code_challenge_method' }), 400);
    const scopes = (params.get('scope') ?? 'api').split(/[ +]/).filter(Boolean);
    return sendHtml(res, consentPage({
      org, scopes,
      hidden: { client_id: clientId, redirect_uri: redirectUri, state: params.get('state') ?? '', scope: scopes.join(' '), code_challenge: params.get('code_challenge') ?? '' },
    }));
  }

  /** Allow: a code (single use, 15 minutes); Deny: `error=access_denied`. */
  function authorizeDecision(form: URLSearchParams, res: ServerResponse) {
    const redirectUri = form.get('redirect_uri') ?? '';
    const state = form.get('state') ?? '';
    const target = new URL(redirectUri);
    if (form.get('decision') !== 'allow') {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'end-user denied authorization');
    } else {
      const code = newSecret('aPrx');
      codes.set(code, {
        code, clientId: form.get('client_id') ?? '', redirectUri, scopes: (form.get('scope') ?? '').split(' ').filter(Boolean),
        codeChallenge: form.get('code_challenge') || null, expiresAt: Date.now() + AUTH_CODE_TTL_MS, used: false,
      });
      target.searchParams.set('code', code);
    }
    if (state) target.searchParams.set('state', state);
    res.writeHead(302, { location: target.toString() }).end();
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const form = await readForm(req);
    const fail = (error: HttpError) => {
      sendJson(res, error.status, error.body);
      return error.status;
    };
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return fail(oauthError(400, 'invalid_client', 'invalid client credentials'));
    const grant = form.get('grant_type');
    let scopes: string[];
    let refresh: RefreshToken | null = null;
    let isNewRefresh = false;
    if (grant === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.used || code.expiresAt < Date.now()) return fail(oauthError(400, 'invalid_grant', 'invalid authorization code'));
      if (code.redirectUri !== form.get('redirect_uri')) return fail(oauthError(400, 'invalid_grant', 'redirect_uri must match configuration'));
      const verifier = form.get('code_verifier');
      if (code.codeChallenge !== null) {
        if (!verifier) return fail(oauthError(400, 'invalid_grant', 'invalid code verifier'));
        if (createHash('sha256').update(verifier).digest('base64url') !== code.codeChallenge) return fail(oauthError(400, 'invalid_request', 'invalid code verifier'));
      }
      code.used = true;
      scopes = code.scopes;
      if (scopes.includes('refresh_token') || scopes.includes('offline_access')) {
        refresh = { token: newSecret('5Aep'), scopes, revoked: false };
        refreshTokens.set(refresh.token, refresh);
        isNewRefresh = true;
      }
    } else if (grant === 'refresh_token') {
      const known = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!known || known.revoked) return fail(oauthError(400, 'invalid_grant', 'expired access/refresh token'));
      refresh = known;
      scopes = known.scopes;
    } else {
      return fail(oauthError(400, 'unsupported_grant_type', 'grant type not supported'));
    }
    const access: AccessToken = { token: `${org.orgId.slice(0, 15)}!${newSecret('AQ')}`, scopes, refreshToken: refresh?.token ?? null, expiresAt: Date.now() + faults.accessTokenTtlSeconds * 1000, revoked: false };
    accessTokens.set(access.token, access);
    const id = `${baseUrl()}/id/${org.orgId}/${org.userId}`;
    const issuedAt = String(Date.now());
    sendJson(res, 200, {
      access_token: access.token,
      ...(isNewRefresh && refresh ? { refresh_token: refresh.token } : {}),
      signature: createHmac('sha256', clientSecret).update(id + issuedAt).digest('base64'),
      scope: scopes.join(' '), instance_url: baseUrl(), id, token_type: 'Bearer', issued_at: issuedAt,
    });
    return 200;
  }

  /** A refresh token ends with every access token made from it; an access token alone. */
  function revoke(tokenText: string, res: ServerResponse): number {
    const refresh = refreshTokens.get(tokenText);
    const access = accessTokens.get(tokenText);
    if (!refresh && !access) {
      sendJson(res, 400, { error: 'invalid_token', error_description: 'the token is invalid' });
      return 400;
    }
    if (refresh) {
      refresh.revoked = true;
      for (const each of accessTokens.values()) if (each.refreshToken === refresh.token) each.revoked = true;
    }
    if (access) access.revoked = true;
    res.writeHead(200).end();
    return 200;
  }

  const identity = () => ({
    id: `${baseUrl()}/id/${org.orgId}/${org.userId}`, asserted_user: true, user_id: org.userId, organization_id: org.orgId, username: org.username,
    nick_name: org.username.split('@')[0], display_name: org.displayName, email: org.username, active: true, user_type: 'STANDARD', language: 'en_US', locale: 'en_US', utcOffset: 0,
    urls: { rest: `${baseUrl()}/services/data/v{version}/`, sobjects: `${baseUrl()}/services/data/v{version}/sobjects/`, query: `${baseUrl()}/services/data/v{version}/query/`, profile: `${baseUrl()}/${org.userId}` },
  });
  const userinfo = () => ({
    sub: `${baseUrl()}/id/${org.orgId}/${org.userId}`, user_id: org.userId, organization_id: org.orgId, preferred_username: org.username, nickname: org.username.split('@')[0],
    name: org.displayName, email: org.username, email_verified: true, active: true, user_type: 'STANDARD', language: 'en_US', locale: 'en_US', utcOffset: 0,
    urls: identity().urls,
  });

  // ---------------------------------------------------------------- data API

  async function data(req: IncomingMessage, res: ServerResponse, url: URL, version: string, rest: string) {
    const method = req.method ?? 'GET';
    if (method === 'GET' && rest === '/limits') {
      return sendJson(res, 200, { DailyApiRequests: { Max: faults.apiLimit, Remaining: Math.max(0, faults.apiLimit - faults.apiUsed) }, ConcurrentAsyncGetReportInstances: { Max: 200, Remaining: 200 } });
    }
    if (method === 'GET' && rest === '/query') return query(req, res, url.searchParams.get('q') ?? '', version);
    const next = /^\/query\/([A-Za-z0-9]+)-(\d+)$/.exec(rest);
    if (method === 'GET' && next) return queryMore(res, next[1]!, Number(next[2]), version);
    const describe = /^\/sobjects\/([A-Za-z]+)\/describe$/.exec(rest);
    if (method === 'GET' && describe) return sendJson(res, 200, describeObject(describe[1]!, version));
    const blob = /^\/sobjects\/ContentNote\/([A-Za-z0-9]{15,18})\/Content$/.exec(rest);
    if (method === 'GET' && blob) {
      const content = org.noteContent.get(blob[1]!);
      if (content === undefined) throw sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
      return void res.writeHead(200, { 'content-type': 'application/octetstream' }).end(Buffer.from(content, 'utf8'));
    }
    if (rest === '/composite/sobjects' && (method === 'POST' || method === 'PATCH')) return collection(res, method, await readJson(req));
    const retrieve = /^\/composite\/sobjects\/([A-Za-z]+)$/.exec(rest);
    if (method === 'POST' && retrieve) return retrieveRecords(res, retrieve[1]!, await readJson(req), version);
    if (method === 'POST' && rest === '/tooling/sobjects/CustomField') {
      try {
        const id = createCustomField(org, await readJson(req), { lacksFieldRights: faults.lacksFieldRights });
        return sendJson(res, 201, { id, success: true, errors: [], warnings: [], infos: [] });
      } catch (error) {
        if (error instanceof ToolingError) throw sfError(error.status, error.errorCode, error.message);
        throw error;
      }
    }
    throw sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
  }

  const objectOf = (name: string) => {
    const object = org.objects.get(name);
    if (!object) throw sfError(404, 'NOT_FOUND', `The requested resource does not exist`);
    return object;
  };

  function describeObject(name: string, _version: string) {
    const object = objectOf(name);
    return {
      name: object.name, label: object.label, keyPrefix: object.keyPrefix, custom: false, createable: true, updateable: true, queryable: true, searchable: true,
      fields: [...object.fields.values()].filter((field) => isVisible(org, object, field)).map((field) => ({
        name: field.name, label: field.label, type: field.type, length: field.length, custom: field.custom, filterable: field.filterable, sortable: field.sortable,
        createable: field.createable, updateable: field.updateable && isVisible(org, object, field, 'edit'), calculated: field.calculated, unique: field.unique, externalId: field.externalId,
        nillable: field.nillable, compoundFieldName: field.compoundFieldName, extraTypeInfo: field.extraTypeInfo, picklistValues: field.picklistValues,
        restrictedPicklist: field.restrictedPicklist, idLookup: field.type === 'id' || field.type === 'email', soapType: soapType(field.type),
      })),
    };
  }

  function recordView(type: string, record: SObjectRecord, fields: string[], version: string) {
    const object = objectOf(type);
    const view: Record<string, unknown> = { attributes: { type, url: `/services/data/${version}/sobjects/${type}/${record.Id}` } };
    for (const name of fields) {
      const field = fieldOf(org, object, name)!;
      // A base64 field's body is fetched on its own (sObject Blob Retrieve); a query answers its URL.
      view[field.name] = field.type === 'base64' ? `/services/data/${version}/sobjects/${type}/${record.Id}/${field.name}` : (record[field.name] ?? null);
    }
    return view;
  }

  function query(req: IncomingMessage, res: ServerResponse, text: string, version: string) {
    let parsed;
    try {
      parsed = parseSoql(text);
      const object = org.objects.get(parsed.object);
      if (!object) throw new SoqlError('INVALID_TYPE', `sObject type '${parsed.object}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.`);
      checkQuery(parsed, object, (field) => isVisible(org, object, field));
      if (object.name === 'ContentDocumentLink' && !filtersOnLinkIds(parsed.where)) {
        throw new SoqlError('MALFORMED_QUERY', "Implementation restriction: ContentDocumentLink requires a filter by a single Id on ContentDocumentId or LinkedEntityId using the equals operator or multiple Id's using the IN operator.");
      }
    } catch (error) {
      if (error instanceof SoqlError) throw sfError(400, error.errorCode, error.message);
      throw error;
    }
    const object = org.objects.get(parsed.object)!;
    let records = sortRecords([...object.records.values()].filter((each) => matches(each, parsed.where, object)), parsed, object);
    if (parsed.limit !== null) records = records.slice(0, parsed.limit);
    const views = records.map((each) => recordView(object.name, each, parsed.fields, version));
    const batch = batchSizeOf(req);
    if (views.length <= batch) return sendJson(res, 200, { totalSize: views.length, done: true, records: views });
    const cursor = `01g5g${randomUUID().replace(/-/g, '').slice(0, 10)}AAQ`;
    cursors.set(cursor, { records: views, batch });
    return sendJson(res, 200, { totalSize: views.length, done: false, nextRecordsUrl: `/services/data/${version}/query/${cursor}-${batch}`, records: views.slice(0, batch) });
  }

  function queryMore(res: ServerResponse, cursor: string, offset: number, version: string) {
    const held = cursors.get(cursor);
    if (!held) throw sfError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    const { batch } = held;
    const page = held.records.slice(offset, offset + batch);
    const done = offset + batch >= held.records.length;
    return sendJson(res, 200, { totalSize: held.records.length, done, ...(done ? {} : { nextRecordsUrl: `/services/data/${version}/query/${cursor}-${offset + batch}` }), records: page });
  }

  /** `Sforce-Query-Options: batchSize=N`: 200 to 2,000 records a page, 2,000 by default. */
  function batchSizeOf(req: IncomingMessage): number {
    const asked = Number(/batchSize=(\d+)/i.exec(String(req.headers['sforce-query-options'] ?? ''))?.[1] ?? 2000);
    return Math.max(200, Math.min(2000, asked));
  }

  function collection(res: ServerResponse, method: 'POST' | 'PATCH', body: unknown) {
    const parsed = ZCollection.safeParse(body);
    if (!parsed.success) throw sfError(400, 'JSON_PARSER_ERROR', `Cannot deserialize the request body: ${z.prettifyError(parsed.error)}`);
    const { records, allOrNone = false } = parsed.data;
    if (records.length > MAX_COLLECTION) throw sfError(400, 'EXCEEDED_ID_LIMIT', 'record limit reached. cannot submit more than 200 records into this call');
    const objects = records.map((each) => {
      const type = (each.attributes as { type?: unknown } | undefined)?.type;
      if (typeof type !== 'string') throw sfError(400, 'INVALID_TYPE', 'Must send a concrete entity type.');
      const object = objectOf(type);
      const unknown = unknownField(org, object, each);
      if (unknown) throw sfError(400, 'INVALID_FIELD', `No such column '${unknown}' on sobject of type ${object.name}`);
      if (method === 'POST' && ('id' in each || 'Id' in each)) throw sfError(400, 'INVALID_FIELD', 'Records in a create request must not have an id');
      return object;
    });
    const now = new Date();
    if (allOrNone) {
      // Rolled back together: tried on a copy first.
      const results = records.map((each, index) => (method === 'POST' ? createOne(structuredCloneOrg(org), objects[index]!, each, faults, now) : updateOne(structuredCloneOrg(org), objects[index]!, each, now)));
      if (results.some((result) => !result.success)) {
        return sendJson(res, 200, results.map((result) => (result.success ? { ...result, success: false, errors: [{ statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK', message: 'Record rolled back because not all records were valid and the request was using AllOrNone header', fields: [] }] } : result)));
      }
    }
    const results: SaveResult[] = records.map((each, index) => (method === 'POST' ? createOne(org, objects[index]!, each, { lacksFieldRights: faults.lacksFieldRights }, now) : updateOne(org, objects[index]!, each, now)));
    return sendJson(res, 200, results);
  }

  function retrieveRecords(res: ServerResponse, type: string, body: unknown, version: string) {
    const parsed = ZRetrieve.safeParse(body);
    if (!parsed.success) throw sfError(400, 'JSON_PARSER_ERROR', `Cannot deserialize the request body: ${z.prettifyError(parsed.error)}`);
    const object = objectOf(type);
    for (const name of parsed.data.fields) if (!fieldOf(org, object, name)) throw sfError(400, 'INVALID_FIELD', `No such column '${name}' on entity '${type}'`);
    return sendJson(res, 200, parsed.data.ids.map((id) => {
      const found = object.records.get(id);
      return found ? recordView(type, found, parsed.data.fields, version) : null;
    }));
  }

  // ---------------------------------------------------------------- admin (tests and developers)

  async function admin(req: IncomingMessage, res: ServerResponse, url: URL) {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/__admin/calls') {
      const since = url.searchParams.get('since');
      return sendJson(res, 200, { calls: since ? calls.filter((call) => call.at >= since) : calls });
    }
    if (method === 'GET' && path === '/__admin/state') {
      return sendJson(res, 200, {
        orgId: org.orgId, userId: org.userId,
        objects: Object.fromEntries([...org.objects.values()].map((object) => [object.name, { customFields: [...object.fields.values()].filter((field) => field.needsGrant), records: [...object.records.values()] }])),
        notes: Object.fromEntries(org.noteContent),
        tokens: { refresh: [...refreshTokens.values()].map((each) => ({ revoked: each.revoked, scopes: each.scopes })), access: accessTokens.size },
      });
    }
    if (method === 'POST' && path === '/__admin/reset') {
      const body = ((await readJson(req)) ?? {}) as { people?: number };
      reset(body.people);
      return sendJson(res, 200, { reset: true });
    }
    if (method === 'GET' && path === '/__admin/faults') return sendJson(res, 200, faults);
    if (method === 'POST' && path === '/__admin/faults') {
      const body = ((await readJson(req)) ?? {}) as Record<string, unknown>;
      const parsed = ZSalesforceFaults.partial().safeParse(body);
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      faults = mergeFaults(faults, parsed.data, Object.keys(body));
      return sendJson(res, 200, faults);
    }
    // Adds records: { object: 'Contact' | 'Lead', records: [{ LastName, Email, Lead_Score__c, … }] }.
    if (method === 'POST' && path === '/__admin/records') {
      const body = ((await readJson(req)) ?? {}) as { object?: string; records?: Array<Record<string, unknown>> };
      const objectName = body.object === 'Lead' ? 'Lead' : 'Contact';
      const ids = (body.records ?? []).map((values) => addRecord(org, objectName, values, new Date()).Id);
      return sendJson(res, 201, { ids });
    }
    if (method === 'POST' && path === '/__admin/expire-access-tokens') {
      for (const access of accessTokens.values()) access.expiresAt = Date.now() - 1000;
      return sendJson(res, 200, { expired: accessTokens.size });
    }
    // Approves the consent as a user would, for API tests: the same redirect the Allow button gives.
    if (method === 'GET' && path === '/__admin/approve') {
      const target = new URL(url.searchParams.get('authorize_url') ?? '');
      const form = new URLSearchParams({
        decision: url.searchParams.get('decision') ?? 'allow', client_id: target.searchParams.get('client_id') ?? '', redirect_uri: target.searchParams.get('redirect_uri') ?? '',
        state: target.searchParams.get('state') ?? '', scope: target.searchParams.get('scope') ?? '', code_challenge: target.searchParams.get('code_challenge') ?? '',
      });
      return authorizeDecision(form, res);
    }
    return sendJson(res, 404, { error: `no such admin route: ${method} ${path}` });
  }

  const listening = await listen(http, options.port, options.host);
  const baseUrl = () => listening.url;
  return {
    ...listening,
    org: () => org,
    setFaults: (next) => void (faults = mergeFaults(faults, ZSalesforceFaults.partial().parse(next), Object.keys(next))),
  };
}

/** Only the keys asked for change (zod's partial() still fills in the defaults of the rest). */
function mergeFaults(faults: SalesforceFaults, parsed: Partial<SalesforceFaults>, keys: string[]): SalesforceFaults {
  return { ...faults, ...Object.fromEntries(Object.entries(parsed).filter(([key]) => keys.includes(key))) };
}

/** A throwaway copy for an allOrNone dry run. */
function structuredCloneOrg(org: Org): Org {
  return {
    ...org,
    objects: new Map([...org.objects].map(([name, object]) => [name, { ...object, fields: object.fields, records: new Map([...object.records].map(([id, each]) => [id, { ...each }])) }])),
    noteContent: new Map(org.noteContent),
  };
}

function soapType(type: string): string {
  return ({ id: 'tns:ID', reference: 'tns:ID', double: 'xsd:double', percent: 'xsd:double', currency: 'xsd:double', int: 'xsd:int', boolean: 'xsd:boolean', datetime: 'xsd:dateTime', base64: 'xsd:base64Binary' } as Record<string, string>)[type] ?? 'xsd:string';
}

/** Names the Bearer token a call carried, for the call log, without showing it. */
function tokenLabel(req: IncomingMessage): string | null {
  const bearer = /^(?:Bearer|OAuth) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer ? createHash('sha256').update(bearer).digest('hex').slice(0, 12) : null;
}
