// A HubSpot-compatible server for development and tests, written from
// HubSpot's reference pages and OpenAPI files, never from our client:
// - OAuth: developers.hubspot.com/docs/apps/legacy-apps/authentication/working-with-oauth
//   and PublicApiSpecs/Auth/Oauth (v1: POST /oauth/v1/token, GET /oauth/v1/access-tokens/{token},
//   DELETE /oauth/v1/refresh-tokens/{token}; v3: POST /oauth/v3/token, /token/introspect, /token/revoke).
// - Properties and groups: developers.hubspot.com/docs/api/crm/properties and PublicApiSpecs/CRM/Properties (v3).
// - Contacts, search and batch read and update: PublicApiSpecs/CRM/Contacts (v3); search: sandbox/hubspot/search.ts.
// - Notes: developers.hubspot.com/docs/api-reference/crm-notes-v3/guide (hs_timestamp required,
//   association type 202 = note → contact) and PublicApiSpecs/CRM/Notes (v3), batch create and read too.
// - Batch answers (200/201 or 207 with each failed input's error; associations
//   v4 batch read; properties batch create): sandbox/hubspot/batch.ts.
// - Limits and errors: sandbox/hubspot/limits.ts.
// Test and developer routes live under /__admin (JSON) and / (an HTML page).
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { bodyReaders, HttpError, jsonSender, listen, loseAnswer, sendHtml } from '../plain-http.ts';
import type { World } from '../provider-world/world.ts';
import { ASSOCIATION_TYPE_NAMES, batchAnswer, batchError, MAX_BATCH_INPUTS, objectTypeOf } from './batch.ts';
import { createLimiter, DOCUMENTED_LIMITS, rateLimitBody, ZHubSpotFaults, type CallKind, type HubSpotFaults, type RateLimits } from './limits.ts';
import { consentPage, contactPage, portalPage } from './pages.ts';
import {
  addContact, newPortal, newSecret, seedPortal,
  type AccessToken, type AuthCode, type Contact, type Portal, type Property, type PropertyType, type RefreshToken, type SeedContact,
} from './portal.ts';
import { searchContacts, SearchValidationError, view, type SearchRequest } from './search.ts';

export interface HubSpotSandboxOptions {
  port?: number;
  host?: string;
  world: World;
  clientId?: string;
  clientSecret?: string;
  limits?: Partial<RateLimits>;
  /** How many provider-world people the seeded portal holds. */
  people?: number;
}

export interface HubSpotSandbox {
  url: string;
  port: number;
  portal(portalId?: number): Portal;
  setFaults(faults: Partial<HubSpotFaults>): void;
  close(): Promise<void>;
}

export const SANDBOX_CLIENT_ID = 'sandbox-hubspot-client-id';
export const SANDBOX_CLIENT_SECRET = 'sandbox-hubspot-client-secret';

const MAX_BODY_BYTES = 1024 * 1024;
/** HubSpot: string values up to 65,536 characters. */
const MAX_STRING_VALUE = 65_536;
const AUTH_CODE_TTL_MS = 10 * 60_000;

/** Valid fieldType per type (developers.hubspot.com/docs/api/crm/properties, "Property type and fieldType values"). */
const FIELD_TYPES: Record<PropertyType, string[]> = {
  string: ['text', 'textarea', 'file', 'html', 'phonenumber'],
  number: ['number', 'calculation_equation'],
  bool: ['booleancheckbox'],
  enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox', 'calculation_equation'],
  date: ['date'],
  datetime: ['date'],
};

/** HubSpot's error shape (PublicApiSpecs `Error`: status, message, correlationId, category, subCategory?, errors?, context?). */
function hubspotError(status: number, category: string, message: string, extra: Record<string, unknown> = {}): HttpError {
  return new HttpError(status, { status: 'error', message, correlationId: randomUUID(), category, ...extra });
}

// Bodies and replies in HubSpot's own words: its errors, its spelling of the JSON content type.
const sendJson = jsonSender('application/json;charset=utf-8');
const { json: readJson, form: readForm } = bodyReaders({
  maxBytes: MAX_BODY_BYTES,
  tooLarge: () => hubspotError(413, 'VALIDATION_ERROR', 'Request body too large'),
  notJson: () => hubspotError(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1'),
});

const ZPropertyCreate = z.object({
  name: z.string(),
  label: z.string().min(1),
  type: z.enum(['string', 'number', 'bool', 'enumeration', 'date', 'datetime']),
  fieldType: z.string(),
  groupName: z.string(),
  description: z.string().optional(),
  displayOrder: z.number().int().optional(),
  hidden: z.boolean().optional(),
  formField: z.boolean().optional(),
  hasUniqueValue: z.boolean().optional(),
  options: z.array(z.object({ label: z.string(), value: z.string(), displayOrder: z.number().int().optional(), hidden: z.boolean().optional() })).optional(),
});
const ZGroupCreate = z.object({ name: z.string(), label: z.string().min(1), displayOrder: z.number().int().optional() });
const ZPropertiesInput = z.object({ properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])) });
const ZNoteCreate = z.object({
  properties: z.record(z.string(), z.union([z.string(), z.number()])),
  associations: z
    .array(z.object({ to: z.object({ id: z.union([z.string(), z.number()]) }), types: z.array(z.object({ associationCategory: z.string(), associationTypeId: z.number().int() })) }))
    .optional(),
  objectWriteTraceId: z.string().optional(),
});
const ZBatchRead = z.object({ inputs: z.array(z.object({ id: z.union([z.string(), z.number()]) })), properties: z.array(z.string()).optional(), idProperty: z.string().optional() });

export async function startHubSpotSandbox(options: HubSpotSandboxOptions): Promise<HubSpotSandbox> {
  const clientId = options.clientId ?? SANDBOX_CLIENT_ID;
  const clientSecret = options.clientSecret ?? SANDBOX_CLIENT_SECRET;
  const limiter = createLimiter({ ...DOCUMENTED_LIMITS, ...options.limits });
  let portals = new Map<number, Portal>();
  let codes = new Map<string, AuthCode>();
  let refreshTokens = new Map<string, RefreshToken>();
  let accessTokens = new Map<string, AccessToken>();
  let faults: HubSpotFaults = ZHubSpotFaults.parse({});
  // `token`: which access token a CRM call carried (a hash's first characters, never the token), refused ones (401) included.
  let calls: Array<{ at: string; method: string; path: string; portalId: number | null; status: number; kind: CallKind | 'admin' | 'page' | 'oauth'; token?: string }> = [];

  const reset = (people = options.people) => {
    const portal = seedPortal(options.world, new Date(), { people });
    portals = new Map([[portal.portalId, portal]]);
    codes = new Map();
    refreshTokens = new Map();
    accessTokens = new Map();
    faults = ZHubSpotFaults.parse({});
    calls = [];
    limiter.reset();
  };
  reset();

  const portalOf = (portalId: number) => {
    const portal = portals.get(portalId);
    if (!portal) throw hubspotError(404, 'OBJECT_NOT_FOUND', `No portal ${portalId}`);
    return portal;
  };

  /** Search sees writes only after the configured lag. */
  const write = (contact: Contact, properties: Record<string, string>) => {
    const at = new Date().toISOString();
    Object.assign(contact.properties, properties, { lastmodifieddate: at });
    contact.updatedAt = at;
    const snapshot = { ...contact.properties };
    if (faults.searchLagMs === 0) contact.indexed = snapshot;
    else setTimeout(() => void (contact.indexed = snapshot), faults.searchLagMs).unref();
  };

  const http = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return;
      if (error instanceof HttpError) return sendJson(res, error.status, error.body);
      sendJson(res, 500, { status: 'error', message: error instanceof Error ? error.message : String(error), category: 'INTERNAL_ERROR' });
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const bearer = tokenLabel(req);
    const record = (kind: (typeof calls)[number]['kind'], portalId: number | null, status: number) =>
      calls.push({ at: new Date().toISOString(), method, path, portalId, status, kind, ...(bearer !== null && kind !== 'oauth' ? { token: bearer } : {}) });

    // Developer page and admin JSON.
    if (method === 'GET' && path === '/') return sendHtml(res, portalPage([...portals.values()], baseUrl()));
    const contactPath = /^\/contacts\/(\d+)\/record\/0-1\/(\d+)$/.exec(path);
    if (method === 'GET' && contactPath) {
      const contact = portals.get(Number(contactPath[1]))?.contacts.get(contactPath[2]!);
      if (!contact) return sendHtml(res, '<!doctype html><html lang="en"><title>Not found</title><main><h1>No such contact</h1><a href="/">Portal</a></main></html>', 404);
      return sendHtml(res, contactPage(portals.get(Number(contactPath[1]))!, contact));
    }
    if (path.startsWith('/__admin')) return admin(req, res, url);

    // OAuth.
    if (method === 'GET' && (path === '/oauth/authorize' || /^\/oauth\/\d+\/authorize$/.test(path))) return authorizePage(res, url);
    if (method === 'POST' && path === '/oauth/authorize/decision') return authorizeDecision(req, res);
    if (method === 'POST' && (path === '/oauth/v1/token' || path === '/oauth/v3/token')) {
      const status = await takeFault('token');
      if (status) return sendFault(res, status, null);
      return token(req, res, record);
    }
    const tokenInfo = /^\/oauth\/v1\/access-tokens\/([^/]+)$/.exec(path);
    if (method === 'GET' && tokenInfo) return accessTokenInfo(res, decodeURIComponent(tokenInfo[1]!));
    if (method === 'POST' && path === '/oauth/v3/token/introspect') return introspect(req, res);
    const revokePath = /^\/oauth\/v1\/refresh-tokens\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && revokePath) return revoke(res, decodeURIComponent(revokePath[1]!), 204);
    if (method === 'POST' && path === '/oauth/v3/token/revoke') {
      const form = await readForm(req);
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) throw oauthError('invalid_client', 'BAD_CLIENT_ID', 'client credentials are invalid');
      return revoke(res, form.get('token') ?? '', 200);
    }

    // Everything else needs a Bearer access token.
    const kind = kindOf(method, path);
    let access: AccessToken;
    try {
      access = authenticate(req);
    } catch (error) {
      record(kind, null, error instanceof HttpError ? error.status : 500);
      throw error;
    }
    const portal = portalOf(access.portalId);
    if (faults.stallMs > 0 && (faults.on === 'all' ? kind !== 'token' : faults.on === kind)) await new Promise((resolve) => setTimeout(resolve, faults.stallMs));
    const faultStatus = await takeFault(kind);
    if (faultStatus) {
      record(kind, portal.portalId, faultStatus);
      return sendFault(res, faultStatus, portal.portalId);
    }
    const isSearch = kind === 'search';
    const taken = limiter.take(portal.portalId, isSearch);
    if (!isSearch) {
      res.setHeader('X-HubSpot-RateLimit-Interval-Milliseconds', String(limiter.limits.generalWindowMs));
      res.setHeader('X-HubSpot-RateLimit-Max', String(limiter.limits.general));
      res.setHeader('X-HubSpot-RateLimit-Remaining', String(taken.remaining));
    }
    if (!taken.allowed) {
      record(kind, portal.portalId, 429);
      return sendJson(res, 429, rateLimitBody(taken.policy, randomUUID()));
    }
    // The call is carried out, but its answer never arrives (logged with status 0).
    const isAnswerLost = faults.answerLostNext > 0 && (faults.on === 'all' ? kind !== 'token' : faults.on === kind);
    if (isAnswerLost) {
      faults.answerLostNext--;
      loseAnswer(res);
    }
    try {
      await crm(req, res, url, portal);
      record(kind, portal.portalId, isAnswerLost ? 0 : res.statusCode);
    } catch (error) {
      record(kind, portal.portalId, error instanceof HttpError ? error.status : 500);
      throw error;
    }
  }

  function kindOf(method: string, path: string): CallKind {
    if (path === '/crm/v3/objects/contacts/search') return 'search';
    if (path.endsWith('/batch/read') || path.startsWith('/crm/v4/associations/')) return 'read';
    if (path.startsWith('/crm/v3/objects/notes')) return method === 'GET' ? 'read' : 'note';
    if (path.startsWith('/crm/v3/properties')) return 'properties';
    if (path.startsWith('/crm/v3/objects/contacts') && method !== 'GET') return 'write';
    return 'read';
  }

  /** A 429 or 5xx the test asked for, counted down; sleeps a tick so a storm is not instantaneous. */
  async function takeFault(kind: CallKind): Promise<number | null> {
    const hits = faults.on === 'all' ? kind !== 'token' : faults.on === kind;
    if (!hits) return null;
    if (faults.rateLimitNext > 0) {
      faults.rateLimitNext--;
      return 429;
    }
    if (faults.serverErrorNext > 0) {
      faults.serverErrorNext--;
      return faults.serverErrorStatus;
    }
    return null;
  }

  function sendFault(res: ServerResponse, status: number, _portalId: number | null) {
    if (status === 429) {
      if (faults.rateLimitRetryAfterSeconds !== null) res.setHeader('Retry-After', String(faults.rateLimitRetryAfterSeconds));
      return sendJson(res, 429, rateLimitBody(faults.rateLimitPolicy, randomUUID()));
    }
    return sendJson(res, status, { status: 'error', message: 'Service unavailable (sandbox fault)', correlationId: randomUUID(), category: 'INTERNAL_ERROR' });
  }

  function authenticate(req: IncomingMessage): AccessToken {
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
    const access = bearer ? accessTokens.get(bearer) : undefined;
    if (!access || refreshTokens.get(access.refreshToken)?.revoked) {
      throw hubspotError(401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found. This API supports OAuth 2.0 authentication.');
    }
    const expiredFor = Math.floor((Date.now() - access.expiresAt) / 1000);
    if (expiredFor >= 0) throw hubspotError(401, 'EXPIRED_AUTHENTICATION', `The OAuth token used to make this call expired ${expiredFor} second(s) ago.`);
    return access;
  }

  // ---------------------------------------------------------------- OAuth

  function authorizePage(res: ServerResponse, url: URL) {
    const params = url.searchParams;
    const redirectUri = params.get('redirect_uri');
    if (params.get('client_id') !== clientId) return sendHtml(res, consentPage({ error: 'This app (client_id) is not known to this HubSpot.' }), 400);
    if (!redirectUri || !/^https?:\/\//.test(redirectUri)) return sendHtml(res, consentPage({ error: 'The redirect_uri is missing or not a URL.' }), 400);
    const scopes = (params.get('scope') ?? '').split(/[ +]/).filter(Boolean);
    const portal = [...portals.values()][0]!;
    return sendHtml(res, consentPage({ portal, scopes, optionalScopes: (params.get('optional_scope') ?? '').split(/[ +]/).filter(Boolean), clientId, redirectUri, state: params.get('state') ?? '' }));
  }

  /** The consent form's answer: a code (single use, 10 minutes) on approval; `error=access_denied` when declined. */
  async function authorizeDecision(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    const redirectUri = form.get('redirect_uri') ?? '';
    const state = form.get('state') ?? '';
    const target = new URL(redirectUri);
    if (form.get('decision') !== 'approve') {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'The user declined the app.');
    } else {
      const portalId = Number(form.get('portal_id'));
      portalOf(portalId);
      const code = newSecret('code-');
      codes.set(code, {
        code, portalId, clientId: form.get('client_id') ?? '', redirectUri, scopes: (form.get('scope') ?? '').split(' ').filter(Boolean), expiresAt: Date.now() + AUTH_CODE_TTL_MS, used: false,
      });
      target.searchParams.set('code', code);
    }
    if (state) target.searchParams.set('state', state);
    res.writeHead(302, { location: target.toString() }).end();
  }

  /** POST /oauth/v1|v3/token, form encoded; error bodies as HubSpot sends them (error, error_description, status, message). */
  async function token(req: IncomingMessage, res: ServerResponse, record: (kind: 'oauth', portalId: number | null, status: number) => void) {
    const form = await readForm(req);
    if (form.get('client_id') !== clientId) throw oauthError('invalid_client', 'BAD_CLIENT_ID', 'missing or unknown client id');
    if (form.get('client_secret') !== clientSecret) throw oauthError('invalid_client', 'BAD_CLIENT_SECRET', 'missing or invalid client secret');
    const grant = form.get('grant_type');
    let refresh: RefreshToken;
    if (grant === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.used) throw oauthError('invalid_grant', 'BAD_AUTH_CODE', 'missing or unknown auth code');
      if (code.expiresAt < Date.now()) throw oauthError('invalid_grant', 'EXPIRED_AUTH_CODE', 'auth code is expired');
      if (code.redirectUri !== form.get('redirect_uri')) throw oauthError('invalid_grant', 'BAD_REDIRECT_URI', 'redirect_uri does not match the one used to get the code');
      code.used = true;
      refresh = { token: newSecret('na1-'), portalId: code.portalId, clientId, scopes: code.scopes, revoked: false };
      refreshTokens.set(refresh.token, refresh);
    } else if (grant === 'refresh_token') {
      const known = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!known || known.revoked || !portals.has(known.portalId)) throw oauthError('invalid_grant', 'BAD_REFRESH_TOKEN', 'refresh token is invalid, expired or revoked');
      refresh = known;
      if (faults.rotateRefreshTokens) {
        known.revoked = true;
        refresh = { ...known, token: newSecret('na1-'), revoked: false };
        refreshTokens.set(refresh.token, refresh);
      }
    } else {
      throw oauthError('unsupported_grant_type', 'BAD_GRANT_TYPE', `grant_type ${grant ?? '(none)'} is not supported`);
    }
    const access: AccessToken = {
      token: newSecret('CJ'), portalId: refresh.portalId, clientId, scopes: refresh.scopes, refreshToken: refresh.token, expiresAt: Date.now() + faults.accessTokenTtlSeconds * 1000,
    };
    accessTokens.set(access.token, access);
    const portal = portals.get(refresh.portalId)!;
    record('oauth', portal.portalId, 200);
    return sendJson(res, 200, {
      token_type: 'bearer', access_token: access.token, refresh_token: refresh.token, expires_in: faults.accessTokenTtlSeconds,
      hub_id: portal.portalId, scopes: refresh.scopes, user_id: portal.userId, token_use: 'access_token',
    });
  }

  function accessTokenInfo(res: ServerResponse, tokenText: string) {
    const access = accessTokens.get(tokenText);
    if (!access || access.expiresAt < Date.now() || refreshTokens.get(access.refreshToken)?.revoked) throw hubspotError(404, 'OBJECT_NOT_FOUND', 'Token not found or expired');
    const portal = portalOf(access.portalId);
    return sendJson(res, 200, {
      token: access.token, user: portal.userEmail, hub_domain: `portal-${portal.portalId}.sandbox`, scopes: access.scopes, hub_id: portal.portalId,
      app_id: 1, expires_in: Math.floor((access.expiresAt - Date.now()) / 1000), user_id: portal.userId, token_type: 'access',
    });
  }

  async function introspect(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    const access = accessTokens.get(form.get('token') ?? '');
    const active = access !== undefined && access.expiresAt > Date.now() && !refreshTokens.get(access.refreshToken)?.revoked;
    if (!active) return sendJson(res, 200, { active: false });
    const portal = portalOf(access.portalId);
    return sendJson(res, 200, {
      active: true, hub_id: portal.portalId, app_id: 1, client_id: clientId, scopes: access.scopes, user_id: portal.userId, token_use: 'access_token',
      expires_in: Math.floor((access.expiresAt - Date.now()) / 1000),
    });
  }

  /** Revoking a refresh token ends it and every access token made from it. */
  function revoke(res: ServerResponse, tokenText: string, status: 200 | 204) {
    const refresh = refreshTokens.get(tokenText);
    if (!refresh) throw hubspotError(404, 'OBJECT_NOT_FOUND', 'Refresh token not found');
    refresh.revoked = true;
    res.writeHead(status).end();
  }

  function oauthError(error: string, status: string, description: string): HttpError {
    return new HttpError(400, { error, error_description: description, status, message: description, correlationId: randomUUID() });
  }

  // ---------------------------------------------------------------- CRM

  async function crm(req: IncomingMessage, res: ServerResponse, url: URL, portal: Portal) {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    // DELETE /appinstalls/v3/external-install (PublicApiSpecs/CRM/App Uninstalls): the app leaves the portal, every grant dies.
    if (method === 'DELETE' && path === '/appinstalls/v3/external-install') {
      for (const refresh of refreshTokens.values()) if (refresh.portalId === portal.portalId) refresh.revoked = true;
      return void res.writeHead(204).end();
    }
    if (method === 'GET' && path === '/account-info/v3/details') {
      return sendJson(res, 200, { portalId: portal.portalId, accountType: 'STANDARD', timeZone: 'UTC', companyCurrency: 'EUR', uiDomain: new URL(baseUrl()).host, dataHostingLocation: 'eu1' });
    }
    if (path === '/crm/v3/properties/contacts/groups') {
      if (method === 'GET') return sendJson(res, 200, { results: [...portal.groups.values()].filter((group) => !group.archived) });
      if (method === 'POST') return createGroup(res, portal, await readJson(req));
    }
    const groupPath = /^\/crm\/v3\/properties\/contacts\/groups\/([^/]+)$/.exec(path);
    if (groupPath && method === 'GET') {
      const group = portal.groups.get(decodeURIComponent(groupPath[1]!));
      if (!group || group.archived) throw hubspotError(404, 'OBJECT_NOT_FOUND', `No property group named ${groupPath[1]}`);
      return sendJson(res, 200, group);
    }
    if (path === '/crm/v3/properties/contacts') {
      if (method === 'GET') return sendJson(res, 200, { results: [...portal.properties.values()].filter((property) => !property.archived).map(propertyView) });
      if (method === 'POST') return createProperty(res, portal, await readJson(req));
    }
    if (method === 'POST' && path === '/crm/v3/properties/contacts/batch/create') return createProperties(res, portal, await readJson(req));
    const propertyPath = /^\/crm\/v3\/properties\/contacts\/([^/]+)$/.exec(path);
    if (propertyPath) {
      const property = portal.properties.get(decodeURIComponent(propertyPath[1]!));
      if (!property || property.archived) throw hubspotError(404, 'OBJECT_NOT_FOUND', `Property ${propertyPath[1]} does not exist`);
      if (method === 'GET') return sendJson(res, 200, propertyView(property));
      if (method === 'DELETE') {
        if (property.hubspotDefined) throw hubspotError(400, 'VALIDATION_ERROR', `Property ${property.name} is a HubSpot default and cannot be archived`);
        property.archived = true;
        return void res.writeHead(204).end();
      }
    }
    if (method === 'POST' && path === '/crm/v3/objects/contacts/search') {
      try {
        return sendJson(res, 200, searchContacts(portal, ((await readJson(req)) ?? {}) as SearchRequest));
      } catch (error) {
        if (error instanceof SearchValidationError) throw hubspotError(400, 'VALIDATION_ERROR', error.message);
        throw error;
      }
    }
    if (method === 'POST' && path === '/crm/v3/objects/contacts/batch/update') return batchUpdate(res, portal, await readJson(req));
    if (method === 'POST' && path === '/crm/v3/objects/contacts/batch/read') return batchRead(res, portal, 'contacts', await readJson(req));
    if (method === 'POST' && path === '/crm/v3/objects/notes/batch/create') return createNotes(res, portal, await readJson(req));
    if (method === 'POST' && path === '/crm/v3/objects/notes/batch/read') return batchRead(res, portal, 'notes', await readJson(req));
    const associationsPath = /^\/crm\/v4\/associations\/([^/]+)\/([^/]+)\/batch\/read$/.exec(path);
    if (method === 'POST' && associationsPath) return readAssociations(res, portal, associationsPath[1]!, associationsPath[2]!, await readJson(req));
    const contactPath = /^\/crm\/v3\/objects\/contacts\/(\d+)$/.exec(path);
    if (contactPath) {
      const contact = portal.contacts.get(contactPath[1]!);
      if (!contact) throw hubspotError(404, 'OBJECT_NOT_FOUND', `resource not found: contact ${contactPath[1]}`);
      if (method === 'GET') {
        const wanted = url.searchParams.getAll('properties').flatMap((value) => value.split(','));
        const body = view(contact, wanted.length > 0 ? wanted : ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'], contact.properties);
        // `associations=notes`: the ids of the contact's notes, as HubSpot's contact read answers it
        // (https://developers.hubspot.com/docs/api-reference/crm-contacts-v3/basic/get-crm-v3-objects-contacts-contactId:
        // SimplePublicObjectWithAssociations, `associations.<type>.results[]` of `{ id, type }`).
        const withNotes = url.searchParams.getAll('associations').flatMap((value) => value.split(',')).includes('notes');
        if (!withNotes) return sendJson(res, 200, body);
        const notes = [...portal.notes.values()].filter((note) => note.contactIds.includes(contact.id)).map((note) => ({ id: note.id, type: 'contact_to_note' }));
        return sendJson(res, 200, { ...body, ...(notes.length > 0 ? { associations: { notes: { results: notes } } } : {}) });
      }
      if (method === 'PATCH') {
        const parsed = ZPropertiesInput.safeParse(await readJson(req));
        if (!parsed.success) throw hubspotError(400, 'VALIDATION_ERROR', `Invalid input JSON: ${z.prettifyError(parsed.error)}`);
        const values = checkProperties(portal, parsed.data.properties);
        write(contact, values);
        return sendJson(res, 200, view(contact, Object.keys(values), contact.properties));
      }
    }
    if (method === 'POST' && path === '/crm/v3/objects/notes') return createNote(res, portal, await readJson(req));
    const notePath = /^\/crm\/v3\/objects\/notes\/(\d+)$/.exec(path);
    if (method === 'GET' && notePath) {
      const note = portal.notes.get(notePath[1]!);
      if (!note) throw hubspotError(404, 'OBJECT_NOT_FOUND', `resource not found: note ${notePath[1]}`);
      const withContacts = url.searchParams.get('associations')?.split(',').includes('contacts');
      return sendJson(res, 200, {
        id: note.id, properties: note.properties, createdAt: note.createdAt, updatedAt: note.createdAt, archived: false,
        ...(withContacts ? { associations: { contacts: { results: note.contactIds.map((id) => ({ id, type: 'note_to_contact' })) } } } : {}),
      });
    }
    throw hubspotError(404, 'OBJECT_NOT_FOUND', `No route for ${method} ${path}`);
  }

  function createGroup(res: ServerResponse, portal: Portal, body: unknown) {
    const parsed = ZGroupCreate.safeParse(body);
    if (!parsed.success) throw hubspotError(400, 'VALIDATION_ERROR', `Invalid input JSON: ${z.prettifyError(parsed.error)}`);
    if (!isValidName(parsed.data.name)) throw hubspotError(400, 'VALIDATION_ERROR', `Invalid group name ${parsed.data.name}`);
    const existing = portal.groups.get(parsed.data.name);
    if (existing && !existing.archived) {
      throw hubspotError(409, 'OBJECT_ALREADY_EXISTS', `A property group named '${parsed.data.name}' already exists.`, { subCategory: 'PropertyGroups.PROPERTY_GROUP_WITH_NAME_EXISTS' });
    }
    const group = { name: parsed.data.name, label: parsed.data.label, displayOrder: parsed.data.displayOrder ?? -1, archived: false };
    portal.groups.set(group.name, group);
    return sendJson(res, 201, group);
  }

  function createProperty(res: ServerResponse, portal: Portal, body: unknown) {
    return sendJson(res, 201, propertyView(addProperty(portal, body)));
  }

  function addProperty(portal: Portal, body: unknown): Property {
    const parsed = ZPropertyCreate.safeParse(body);
    if (!parsed.success) throw hubspotError(400, 'VALIDATION_ERROR', `Invalid input JSON: ${z.prettifyError(parsed.error)}`);
    const input = parsed.data;
    if (!isValidName(input.name)) throw hubspotError(400, 'VALIDATION_ERROR', `Property name ${input.name} must be lower case letters, digits and underscores, starting with a letter`);
    if (!FIELD_TYPES[input.type].includes(input.fieldType)) {
      throw hubspotError(400, 'VALIDATION_ERROR', `fieldType ${input.fieldType} is not valid for type ${input.type}`, { subCategory: 'Properties.INVALID_FIELD_TYPE' });
    }
    if (!portal.groups.get(input.groupName) || portal.groups.get(input.groupName)!.archived) {
      throw hubspotError(400, 'VALIDATION_ERROR', `Property group ${input.groupName} does not exist`, { subCategory: 'Properties.GROUP_DOES_NOT_EXIST' });
    }
    if (input.type === 'enumeration' && (input.options ?? []).length === 0) throw hubspotError(400, 'VALIDATION_ERROR', 'An enumeration property needs options');
    const existing = portal.properties.get(input.name);
    if (existing && !existing.archived) {
      throw hubspotError(409, 'OBJECT_ALREADY_EXISTS', `A property named '${input.name}' already exists.`, { subCategory: 'Properties.PROPERTY_WITH_NAME_EXISTS' });
    }
    const at = new Date().toISOString();
    const property: Property = {
      name: input.name, label: input.label, type: input.type, fieldType: input.fieldType, groupName: input.groupName, description: input.description ?? '',
      options: (input.options ?? []).map((option, index) => ({ label: option.label, value: option.value, displayOrder: option.displayOrder ?? index, hidden: option.hidden ?? false })),
      displayOrder: input.displayOrder ?? -1, hidden: input.hidden ?? false, formField: input.formField ?? false, hubspotDefined: false, archived: false, createdAt: at, updatedAt: at,
      calculated: false, hasUniqueValue: input.hasUniqueValue ?? false, readOnlyValue: false,
    };
    portal.properties.set(property.name, property);
    return property;
  }

  /** Values must name live properties and fit their type; an unknown one is HubSpot's PROPERTY_DOESNT_EXIST. */
  function checkProperties(portal: Portal, input: Record<string, string | number | boolean | null>): Record<string, string> {
    const problems: Array<Record<string, unknown>> = [];
    const values: Record<string, string> = {};
    for (const [name, raw] of Object.entries(input)) {
      const property = portal.properties.get(name);
      const value = raw === null ? '' : String(raw);
      if (!property || property.archived) {
        problems.push({ isValid: false, message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST', name, localizedErrorMessage: `Property "${name}" does not exist` });
      } else if (property.readOnlyValue) {
        problems.push({ isValid: false, message: `${name} is a read only property; its value cannot be set.`, error: 'READ_ONLY_VALUE', name });
      } else if (value.length > MAX_STRING_VALUE) {
        problems.push({ isValid: false, message: `${name} is longer than ${MAX_STRING_VALUE} characters`, error: 'INVALID_STRING_LENGTH', name });
      } else if (property.type === 'number' && value !== '' && !Number.isFinite(Number(value))) {
        problems.push({ isValid: false, message: `${value} is not a valid number`, error: 'INVALID_INTEGER', name });
      } else if (property.type === 'enumeration' && value !== '' && !property.options.some((option) => option.value === value)) {
        problems.push({ isValid: false, message: `${value} was not one of the allowed options: ${property.options.map((option) => option.value).join(', ')}`, error: 'INVALID_OPTION', name });
      } else if (property.type === 'datetime' && value !== '' && Number.isNaN(Date.parse(value)) && !/^\d+$/.test(value)) {
        problems.push({ isValid: false, message: `${value} is not a valid date`, error: 'INVALID_DATE', name });
      } else {
        values[name] = value;
      }
    }
    if (problems.length > 0) throw hubspotError(400, 'VALIDATION_ERROR', `Property values were not valid: ${JSON.stringify(problems)}`);
    return values;
  }

  function batchInputs<T>(body: unknown, schema: z.ZodType<{ inputs: T[] }>): T[] {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw hubspotError(400, 'VALIDATION_ERROR', `Invalid input JSON: ${z.prettifyError(parsed.error)}`);
    const inputs = parsed.data.inputs;
    if (inputs.length > MAX_BATCH_INPUTS) throw hubspotError(400, 'VALIDATION_ERROR', `Batch input must contain at most ${MAX_BATCH_INPUTS} inputs; received ${inputs.length}`);
    return inputs;
  }

  /** Each input on its own: 200 when all were written, 207 naming each refused one by `context.ids`. */
  function batchUpdate(res: ServerResponse, portal: Portal, body: unknown) {
    const inputs = batchInputs(body, z.object({ inputs: z.array(ZPropertiesInput.extend({ id: z.union([z.string(), z.number()]), objectWriteTraceId: z.string().optional() })) }));
    const ids = inputs.map((input) => String(input.id));
    if (new Set(ids).size !== ids.length) throw hubspotError(400, 'VALIDATION_ERROR', 'Duplicate IDs found in batch input');
    const startedAt = new Date().toISOString();
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of inputs) {
      const id = String(input.id);
      const contact = portal.contacts.get(id);
      if (!contact) {
        errors.push(batchError('OBJECT_NOT_FOUND', `Could not find contact ${id}`, { ids: [id] }));
        continue;
      }
      try {
        const values = checkProperties(portal, input.properties);
        write(contact, values);
        results.push({ ...view(contact, Object.keys(values), contact.properties), ...(input.objectWriteTraceId ? { objectWriteTraceId: input.objectWriteTraceId } : {}) });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const refused = error.body as { category: string; message: string };
        errors.push(batchError(refused.category, refused.message, { ids: [id] }));
      }
    }
    const answer = batchAnswer(results, errors, startedAt, 200);
    return sendJson(res, answer.status, answer.body);
  }

  /** Contacts or notes by id with the asked properties; ids that name nothing are errors of a 207. */
  function batchRead(res: ServerResponse, portal: Portal, objectType: 'contacts' | 'notes', body: unknown) {
    const inputs = batchInputs(body, ZBatchRead);
    if ((body as { idProperty?: unknown }).idProperty !== undefined) throw hubspotError(400, 'VALIDATION_ERROR', 'The stand-in reads by record id only (no idProperty)');
    const wanted = (body as { properties?: string[] }).properties ?? [];
    const startedAt = new Date().toISOString();
    const results: unknown[] = [];
    const missing: string[] = [];
    for (const id of new Set(inputs.map((input) => String(input.id)))) {
      if (objectType === 'contacts') {
        const contact = portal.contacts.get(id);
        if (contact) results.push(view(contact, wanted.length > 0 ? wanted : ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'], contact.properties));
        else missing.push(id);
      } else {
        const note = portal.notes.get(id);
        if (!note) {
          missing.push(id);
          continue;
        }
        const names = wanted.length > 0 ? wanted : ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'];
        results.push({ id, properties: Object.fromEntries(names.map((name) => [name, note.properties[name] ?? null])), createdAt: note.createdAt, updatedAt: note.createdAt, archived: false });
      }
    }
    const errors = missing.length > 0 ? [batchError('OBJECT_NOT_FOUND', `Could not get some ${objectType} objects, they may be deleted or not exist.`, { ids: missing })] : [];
    const answer = batchAnswer(results, errors, startedAt, 200);
    return sendJson(res, answer.status, answer.body);
  }

  /** A note's input checked as HubSpot checks it: hs_timestamp, the body's length, associations that link a note to existing contacts. */
  function noteOf(portal: Portal, input: z.infer<typeof ZNoteCreate>): { properties: Record<string, string>; contactIds: string[] } {
    const properties = Object.fromEntries(Object.entries(input.properties).map(([name, value]) => [name, String(value)]));
    if (!properties.hs_timestamp) {
      throw hubspotError(400, 'VALIDATION_ERROR', 'Property values were not valid: [{"isValid":false,"message":"hs_timestamp is required","error":"REQUIRED_FIELD","name":"hs_timestamp"}]');
    }
    if ((properties.hs_note_body ?? '').length > MAX_STRING_VALUE) throw hubspotError(400, 'VALIDATION_ERROR', `hs_note_body is longer than ${MAX_STRING_VALUE} characters`);
    const contactIds: string[] = [];
    for (const association of input.associations ?? []) {
      const id = String(association.to.id);
      if (!association.types.some((type) => type.associationCategory === 'HUBSPOT_DEFINED' && type.associationTypeId === 202)) {
        throw hubspotError(400, 'VALIDATION_ERROR', `association type ${JSON.stringify(association.types)} cannot link a note to a contact (HUBSPOT_DEFINED 202 does)`);
      }
      if (!portal.contacts.has(id)) throw hubspotError(400, 'VALIDATION_ERROR', `One or more associations are invalid: contact ${id} does not exist`);
      contactIds.push(id);
    }
    return { properties, contactIds };
  }

  function addNote(portal: Portal, note: { properties: Record<string, string>; contactIds: string[] }) {
    const id = String(portal.nextObjectId++);
    const createdAt = new Date().toISOString();
    portal.notes.set(id, { id, properties: { ...note.properties, hs_object_id: id, hs_createdate: createdAt }, contactIds: note.contactIds, createdAt });
    return { id, properties: { ...note.properties, hs_object_id: id, hs_createdate: createdAt, hs_lastmodifieddate: createdAt }, createdAt, updatedAt: createdAt, archived: false };
  }

  function createNote(res: ServerResponse, portal: Portal, body: unknown) {
    const parsed = ZNoteCreate.safeParse(body);
    if (!parsed.success) throw hubspotError(400, 'VALIDATION_ERROR', `Invalid input JSON: ${z.prettifyError(parsed.error)}`);
    return sendJson(res, 201, addNote(portal, noteOf(portal, parsed.data)));
  }

  /**
   * Multi-status only when every input carries its own objectWriteTraceId:
   * then the valid ones are created and each refused one named by its trace
   * id (207); otherwise one invalid input refuses the whole batch and nothing
   * is created. Not idempotent: the same inputs again make new notes.
   */
  function createNotes(res: ServerResponse, portal: Portal, body: unknown) {
    const inputs = batchInputs(body, z.object({ inputs: z.array(ZNoteCreate) }));
    const traces = inputs.map((input) => input.objectWriteTraceId);
    const isMultiStatus = traces.every((trace) => trace !== undefined) && new Set(traces).size === traces.length;
    const startedAt = new Date().toISOString();
    const checked = inputs.map((input) => {
      try {
        return { input, note: noteOf(portal, input) };
      } catch (error) {
        if (!(error instanceof HttpError) || !isMultiStatus) throw error;
        const refused = error.body as { category: string; message: string };
        return { input, error: batchError(refused.category, refused.message, { objectWriteTraceId: [input.objectWriteTraceId!] }) };
      }
    });
    const results = checked.flatMap((each) => (each.note ? [{ ...addNote(portal, each.note), ...(each.input.objectWriteTraceId ? { objectWriteTraceId: each.input.objectWriteTraceId } : {}) }] : []));
    const answer = batchAnswer(results, checked.flatMap((each) => (each.error ? [each.error] : [])), startedAt, 201);
    return sendJson(res, answer.status, answer.body);
  }

  /** POST /crm/v4/associations/{from}/{to}/batch/read, contacts → notes and back; an object with none is an error of a 207. */
  function readAssociations(res: ServerResponse, portal: Portal, fromName: string, toName: string, body: unknown) {
    const from = objectTypeOf(fromName);
    const to = objectTypeOf(toName);
    if (!from || !to || from === to) {
      throw hubspotError(400, 'VALIDATION_ERROR', `The stand-in links ${ASSOCIATION_TYPE_NAMES.contacts.join('/')} with ${ASSOCIATION_TYPE_NAMES.notes.join('/')} only, not ${fromName} with ${toName}`);
    }
    const inputs = batchInputs(body, z.object({ inputs: z.array(z.object({ id: z.union([z.string(), z.number()]), after: z.string().optional() })) }));
    const startedAt = new Date().toISOString();
    const results: unknown[] = [];
    const errors: unknown[] = [];
    const [fromTypeId, toTypeId, typeId] = from === 'contacts' ? ['0-1', '0-46', 201] : ['0-46', '0-1', 202];
    for (const id of new Set(inputs.map((input) => String(input.id)))) {
      const linked = from === 'contacts'
        ? [...portal.notes.values()].filter((note) => note.contactIds.includes(id)).map((note) => note.id)
        : (portal.notes.get(id)?.contactIds ?? []);
      if (linked.length === 0) {
        errors.push(batchError('OBJECT_NOT_FOUND', `No ${to} is associated with ${from} ${id}.`, { fromObjectId: [id] }));
        continue;
      }
      results.push({
        from: { id },
        to: linked.map((toObjectId) => ({ toObjectId, associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId, label: null, fromObjectTypeId: fromTypeId, toObjectTypeId: toTypeId }] })),
      });
    }
    const answer = batchAnswer(results, errors, startedAt, 200);
    return sendJson(res, answer.status, answer.body);
  }

  /** Properties created side by side: each refused one (a name taken, a bad type) is an error of a 207 named by `context.name`. */
  function createProperties(res: ServerResponse, portal: Portal, body: unknown) {
    const inputs = batchInputs(body, z.object({ inputs: z.array(z.unknown()) }));
    const startedAt = new Date().toISOString();
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of inputs) {
      try {
        results.push(propertyView(addProperty(portal, input)));
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const refused = error.body as { category: string; message: string };
        errors.push(batchError(refused.category, refused.message, { name: [String((input as { name?: unknown }).name ?? '')] }));
      }
    }
    const answer = batchAnswer(results, errors, startedAt, 201);
    return sendJson(res, answer.status, answer.body);
  }

  // ---------------------------------------------------------------- admin (tests and developers)

  async function admin(req: IncomingMessage, res: ServerResponse, url: URL) {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/__admin/calls') {
      const since = url.searchParams.get('since');
      return sendJson(res, 200, { calls: since ? calls.filter((call) => call.at >= since) : calls });
    }
    if (method === 'GET' && path === '/__admin/state') return sendJson(res, 200, { portals: [...portals.values()].map(portalJson) });
    if (method === 'POST' && path === '/__admin/reset') {
      const body = ((await readJson(req)) ?? {}) as { people?: number };
      reset(body.people);
      return sendJson(res, 200, { reset: true });
    }
    if (method === 'GET' && path === '/__admin/faults') return sendJson(res, 200, faults);
    if (method === 'POST' && path === '/__admin/faults') {
      const parsed = ZHubSpotFaults.partial().safeParse(await readJson(req));
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      faults = { ...faults, ...parsed.data };
      return sendJson(res, 200, faults);
    }
    if (method === 'POST' && path === '/__admin/limits') {
      const parsed = z.object({ general: z.number().int().min(1), generalWindowMs: z.number().int().min(1), searchPerSecond: z.number().int().min(1) }).partial().safeParse(await readJson(req));
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      Object.assign(limiter.limits, parsed.data);
      return sendJson(res, 200, limiter.limits);
    }
    // Adds contacts to a portal (a new portal when `portalId` is new): { portalId?, contacts: SeedContact[] }.
    if (method === 'POST' && path === '/__admin/contacts') {
      const body = ((await readJson(req)) ?? {}) as { portalId?: number; contacts?: SeedContact[] };
      const portalId = body.portalId ?? [...portals.keys()][0]!;
      if (!portals.has(portalId)) portals.set(portalId, newPortal(portalId, `owner@portal-${portalId}.example`, new Date()));
      const added = (body.contacts ?? []).map((seed) => addContact(portals.get(portalId)!, seed, new Date()).id);
      return sendJson(res, 201, { portalId, ids: added });
    }
    // Expires every access token at once (as if 30 minutes had passed), or revokes every refresh token (an uninstall).
    if (method === 'POST' && path === '/__admin/expire-access-tokens') {
      for (const access of accessTokens.values()) access.expiresAt = Date.now() - 1000;
      return sendJson(res, 200, { expired: accessTokens.size });
    }
    if (method === 'POST' && path === '/__admin/uninstall') {
      for (const refresh of refreshTokens.values()) refresh.revoked = true;
      return sendJson(res, 200, { revoked: refreshTokens.size });
    }
    // Approves the consent as a user would, for API tests: the same redirect the consent form's button gives.
    if (method === 'GET' && path === '/__admin/approve') {
      const target = new URL(url.searchParams.get('authorize_url') ?? '');
      const form = new URLSearchParams({
        decision: url.searchParams.get('decision') ?? 'approve', portal_id: String(url.searchParams.get('portal_id') ?? [...portals.keys()][0]),
        client_id: target.searchParams.get('client_id') ?? '', redirect_uri: target.searchParams.get('redirect_uri') ?? '', state: target.searchParams.get('state') ?? '', scope: target.searchParams.get('scope') ?? '',
      });
      const fake = Object.assign(Readable.from([Buffer.from(form.toString())]), { headers: { 'content-type': 'application/x-www-form-urlencoded' } }) as unknown as IncomingMessage;
      return authorizeDecision(fake, res);
    }
    return sendJson(res, 404, { error: `no such admin route: ${method} ${path}` });
  }

  function portalJson(portal: Portal) {
    return {
      portalId: portal.portalId,
      groups: [...portal.groups.values()],
      properties: [...portal.properties.values()].filter((property) => !property.hubspotDefined).map(propertyView),
      contacts: [...portal.contacts.values()].map((contact) => ({ id: contact.id, properties: contact.properties })),
      notes: [...portal.notes.values()],
      tokens: {
        refresh: [...refreshTokens.values()].filter((token) => token.portalId === portal.portalId).map((token) => ({ revoked: token.revoked, scopes: token.scopes })),
        access: [...accessTokens.values()].filter((token) => token.portalId === portal.portalId).length,
      },
    };
  }

  const listening = await listen(http, options.port, options.host);
  const baseUrl = () => listening.url;
  return {
    ...listening,
    portal: (portalId) => portalOf(portalId ?? [...portals.keys()][0]!),
    setFaults: (next) => void (faults = { ...faults, ...ZHubSpotFaults.partial().parse(next) }),
  };
}

/** Names the Bearer token a call carried, for the call log, without showing it. */
function tokenLabel(req: IncomingMessage): string | null {
  const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer ? createHash('sha256').update(bearer).digest('hex').slice(0, 12) : null;
}

/** Lower-case letters, digits and underscores, starting with a letter, at most 100 characters. */
const isValidName = (name: string) => /^[a-z][a-z0-9_]{0,99}$/.test(name);

/** A property as HubSpot answers it (PublicApiSpecs/CRM/Properties v3 `Property`: `calculated`, `hasUniqueValue`, `modificationMetadata` …). */
function propertyView(property: Property) {
  const { hubspotDefined, archived, readOnlyValue, ...rest } = property;
  return {
    ...rest, hubspotDefined, archived, externalOptions: false,
    modificationMetadata: { archivable: !hubspotDefined, readOnlyDefinition: hubspotDefined, readOnlyValue },
  };
}
