import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import { decryptToken, encryptToken } from '../../lib/token-cipher.ts';
import {
  TEST_EVENT,
  type DeliveryPage,
  type DeliveryStatus,
  type DeliveryView,
  type EndpointStatus,
  type EndpointView,
  type TDeliveryFilter,
  type WebhookEvent,
} from '../../domain/webhooks/webhooks.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { DEFAULT_ATTEMPTS_PER_ENDPOINT } from '../../domain/webhooks/limits.ts';

export { WEBHOOK_EVENTS, type WebhookEvent } from '../../domain/webhooks/webhooks.ts';

/** After a rotation the old secret still signs (beside the new one) this long. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 60 * 60_000;
/** An endpoint that has failed every attempt this long is disabled. */
export const FAILING_DISABLE_AFTER_MS = 3 * 24 * 60 * 60_000;
const SECRET_PURPOSE = 'webhook-secret';

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

interface EndpointRow {
  id: number;
  account_id: number;
  url: string;
  events: string[];
  status: EndpointStatus;
  disabled_reason: 'gone' | 'failing' | null;
  disabled_at: Date | null;
  created_at: Date;
  previous_secret_expires_at: Date | null;
}

const ENDPOINT_COLUMNS = 'id, account_id, url, events, status, disabled_reason, disabled_at, created_at, previous_secret_expires_at';
const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

function endpointView(row: EndpointRow, now: Date): EndpointView {
  const expires = row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabledReason: row.disabled_reason,
    disabledAt: iso(row.disabled_at),
    createdAt: iso(row.created_at)!,
    previousSecretExpiresAt: iso(expires),
  };
}

export async function listEndpoints(em: EntityManager, accountId: number, now: Date): Promise<EndpointView[]> {
  const rows: EndpointRow[] = await em.execute(`select ${ENDPOINT_COLUMNS} from webhook_endpoint where account_id = ? order by id`, [accountId]);
  return rows.map((row) => endpointView(row, now));
}

/** Adds an endpoint (the URL already checked by the caller); its secret is returned once here and on demand after. */
export async function createEndpoint(
  em: EntityManager,
  key: Buffer,
  input: { accountId: number; url: string; events: WebhookEvent[] },
  now: Date,
): Promise<{ endpoint: EndpointView; secret: string }> {
  const secret = newWebhookSecret();
  const [row]: EndpointRow[] = await em.execute(
    `insert into webhook_endpoint (account_id, url, events, secret, status, created_at) values (?, ?, ?, ?, 'active', ?) returning ${ENDPOINT_COLUMNS}`,
    [input.accountId, input.url, `{${input.events.join(',')}}`, encryptToken(key, secret, SECRET_PURPOSE), now],
  );
  return { endpoint: endpointView(row, now), secret };
}

/** Events and pause/resume. A disabled endpoint comes back only through `resume`, which also forgets its failing streak. */
export async function updateEndpoint(
  em: EntityManager,
  accountId: number,
  endpointId: number,
  change: { events?: WebhookEvent[]; isPaused?: boolean },
): Promise<boolean> {
  const sets: string[] = [];
  const values: unknown[] = [];
  if (change.events) {
    sets.push('events = ?');
    values.push(`{${change.events.join(',')}}`);
  }
  if (change.isPaused === true) sets.push(`status = 'paused'`);
  if (change.isPaused === false) sets.push(`status = 'active', disabled_reason = null, disabled_at = null, failing_since = null`);
  if (sets.length === 0) return (await em.execute('select 1 from webhook_endpoint where id = ? and account_id = ?', [endpointId, accountId])).length > 0;
  const updated: unknown[] = await em.execute(`update webhook_endpoint set ${sets.join(', ')} where id = ? and account_id = ? returning id`, [...values, endpointId, accountId]);
  return updated.length > 0;
}

export async function deleteEndpoint(em: EntityManager, accountId: number, endpointId: number): Promise<boolean> {
  const deleted: unknown[] = await em.execute('delete from webhook_endpoint where id = ? and account_id = ? returning id', [endpointId, accountId]);
  return deleted.length > 0;
}

/** The current secret, revealed on demand (the dashboard's "Reveal"). */
export async function revealSecret(em: EntityManager, key: Buffer, accountId: number, endpointId: number): Promise<string | null> {
  const [row]: { secret: string }[] = await em.execute('select secret from webhook_endpoint where id = ? and account_id = ?', [endpointId, accountId]);
  return row ? decryptToken(key, row.secret, SECRET_PURPOSE) : null;
}

/**
 * A new secret; the one it replaces keeps signing (beside it) for 24 h, so a
 * receiver can switch over while deliveries in flight still verify.
 */
export async function rotateSecret(em: EntityManager, key: Buffer, accountId: number, endpointId: number, now: Date): Promise<string | null> {
  const secret = newWebhookSecret();
  const updated: unknown[] = await em.execute(
    `update webhook_endpoint set previous_secret = secret, previous_secret_expires_at = ?, secret = ? where id = ? and account_id = ? returning id`,
    [new Date(now.getTime() + PREVIOUS_SECRET_VALIDITY_MS), encryptToken(key, secret, SECRET_PURPOSE), endpointId, accountId],
  );
  return updated.length > 0 ? secret : null;
}

const newDeliveryId = () => `msg_${randomBytes(16).toString('hex')}`;

/** "Send test event": one delivery of `webhook.test`, through the same path as real ones. */
export async function enqueueTestEvent(em: EntityManager, accountId: number, endpointId: number, now: Date): Promise<string | null> {
  const id = newDeliveryId();
  const payload = JSON.stringify({ type: TEST_EVENT, timestamp: now.toISOString(), data: { message: 'A test event from the Webhooks page.' } });
  const inserted: unknown[] = await em.execute(
    `insert into webhook_delivery (id, endpoint_id, account_id, event_type, payload, status, created_at)
     select ?, id, account_id, ?, ?, 'pending', ? from webhook_endpoint where id = ? and account_id = ? returning id`,
    [id, TEST_EVENT, payload, now, endpointId, accountId],
  );
  if (inserted.length === 0) return null;
  await em.execute(`select pg_notify('webhook_delivery_created', '')`);
  return id;
}

/** "Resend": the same event (same `webhook-id`, so a receiver can tell) delivered again by a new run. */
export async function resendDelivery(em: EntityManager, accountId: number, deliveryId: string): Promise<boolean> {
  const updated: unknown[] = await em.execute(
    `update webhook_delivery set run = run + 1, status = 'pending', workflow_started_at = null, first_attempt_claimed_at = null, ended_at = null
     where id = ? and account_id = ? and status <> 'pending' returning id`,
    [deliveryId, accountId],
  );
  if (updated.length > 0) await em.execute(`select pg_notify('webhook_delivery_created', '')`);
  return updated.length > 0;
}

const DELIVERY_COLUMNS = 'id, event_type, research_id, status, attempts, last_status_code, last_error, last_duration_ms, created_at, ended_at';

/**
 * One page of an endpoint's deliveries, newest first (index
 * webhook_delivery_endpoint_index), with how many match in all; null when the
 * endpoint is not the account's (or does not exist), which the caller answers 404.
 */
export async function pageDeliveries(em: EntityManager, accountId: number, endpointId: number, filter: TDeliveryFilter): Promise<DeliveryPage | null> {
  const where = `endpoint_id = ? and account_id = ?${filter.status ? ' and status = ?' : ''}`;
  const params: unknown[] = filter.status ? [endpointId, accountId, filter.status] : [endpointId, accountId];
  const [counted]: { total: number }[] = await em.execute(
    `select (select count(*)::int from webhook_delivery where ${where}) as total from webhook_endpoint where id = ? and account_id = ?`,
    [...params, endpointId, accountId],
  );
  if (!counted) return null;
  const rows: Record<string, any>[] =
    counted.total === 0
      ? []
      : await em.execute(`select ${DELIVERY_COLUMNS} from webhook_delivery where ${where} order by created_at desc, id limit ? offset ?`, [
          ...params,
          filter.pageSize,
          (filter.page - 1) * filter.pageSize,
        ]);
  return {
    deliveries: rows.map(deliveryView),
    page: filter.page,
    pageSize: filter.pageSize,
    pageCount: Math.max(1, Math.ceil(counted.total / filter.pageSize)),
    total: counted.total,
  };
}

/** An endpoint's newest deliveries (its first page of 100), for tests and tools. */
export async function listDeliveries(em: EntityManager, accountId: number, endpointId: number): Promise<DeliveryView[]> {
  return (await pageDeliveries(em, accountId, endpointId, { page: 1, pageSize: 100 }))?.deliveries ?? [];
}

function deliveryView(row: Record<string, any>): DeliveryView {
  return {
    id: row.id,
    eventType: row.event_type,
    researchId: row.research_id,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastDurationMs: row.last_duration_ms,
    createdAt: iso(row.created_at)!,
    endedAt: iso(row.ended_at),
  };
}

// ---- the delivery side (activities/webhook-delivery.ts) ----

export interface DeliveryToSend {
  id: string;
  endpointId: number;
  accountId: number;
  url: string;
  endpointStatus: EndpointStatus;
  status: DeliveryStatus;
  payload: string;
  /** The current secret, and the previous one while it is still valid. */
  secrets: string[];
}

export async function loadDeliveryToSend(em: EntityManager, key: Buffer, deliveryId: string, now: Date): Promise<DeliveryToSend | null> {
  const [row]: Record<string, any>[] = await em.execute(
    `select d.id, d.endpoint_id, d.account_id, d.status, d.payload, e.url, e.status as endpoint_status, e.secret, e.previous_secret, e.previous_secret_expires_at
       from webhook_delivery d join webhook_endpoint e on e.id = d.endpoint_id where d.id = ?`,
    [deliveryId],
  );
  return row ? deliveryToSendOf(row, key, now) : null;
}

/** A claim older than this is a dead dispatcher's (dispatch.ts CLAIM_EXPIRES_MS): no longer in flight. */
const CLAIM_IN_FLIGHT_SECONDS = 60;

/**
 * Claims up to `limit` new deliveries for their first attempt (one dispatcher
 * each, however many run) and returns what sending them needs, in one
 * statement: at a burst of job ends every round trip per delivery counts.
 * No endpoint gets more than `perEndpoint` attempts under way at once: one
 * account's burst of job ends to a slow receiver holds a few of the
 * dispatchers' slots, and the other endpoints' deliveries pass it. Its own
 * deliveries wait, oldest first, and go out as its attempts end. Claims are
 * taken one dispatcher at a time (a transaction lock) so that two never both
 * fill an endpoint's room.
 */
export async function claimFirstAttempts(em: EntityManager, key: Buffer, limit: number, now: Date, perEndpoint = DEFAULT_ATTEMPTS_PER_ENDPOINT): Promise<Array<DeliveryToSend & { run: number }>> {
  const rows: Record<string, any>[] = await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('webhook_first_attempt_claims'))`);
    return tx.execute(
      `with in_flight as (
         select endpoint_id, count(*)::int as n from webhook_delivery
          where workflow_started_at is null and first_attempt_claimed_at > now() - make_interval(secs => ?)
          group by endpoint_id
       ), waiting as (
         select w.id, w.created_at, row_number() over (partition by w.endpoint_id order by w.created_at, w.id) + coalesce(f.n, 0) as place
           from webhook_delivery w left join in_flight f on f.endpoint_id = w.endpoint_id
          where w.workflow_started_at is null and w.first_attempt_claimed_at is null
       )
       update webhook_delivery d set first_attempt_claimed_at = now()
         from webhook_endpoint e
        where e.id = d.endpoint_id
          and d.id in (select id from webhook_delivery where id in (select id from waiting where place <= ? order by created_at limit ?) for update skip locked)
        returning d.id, d.run, d.endpoint_id, d.account_id, d.status, d.payload, e.url, e.status as endpoint_status, e.secret, e.previous_secret, e.previous_secret_expires_at`,
      [CLAIM_IN_FLIGHT_SECONDS, perEndpoint, limit],
    );
  });
  return rows.map((row) => ({ ...deliveryToSendOf(row, key, now), run: row.run as number }));
}

/**
 * A first attempt that succeeded, in one statement: the attempt, the
 * delivery delivered and handed on (no workflow needed), the endpoint's
 * failing streak ended.
 */
export async function recordDeliveredFirstAttempt(em: EntityManager, deliveryId: string, endpointId: number, attempt: Omit<AttemptRecord, 'isSuccess' | 'error'>, now: Date): Promise<void> {
  await em.execute(
    `with attempt as (
        insert into webhook_attempt (delivery_id, attempted_at, status_code, error, duration_ms) values (?, ?, ?, null, ?)
      ), delivery as (
        update webhook_delivery set attempts = attempts + 1, last_status_code = ?, last_error = null, last_duration_ms = ?,
               status = 'delivered', ended_at = ?, workflow_started_at = now()
         where id = ?
      )
      update webhook_endpoint set failing_since = null where id = ? and failing_since is not null`,
    [deliveryId, now, attempt.statusCode, attempt.durationMs, attempt.statusCode, attempt.durationMs, now, deliveryId, endpointId],
  );
}

function deliveryToSendOf(row: Record<string, any>, key: Buffer, now: Date): DeliveryToSend {
  const secrets = [decryptToken(key, row.secret, SECRET_PURPOSE)];
  if (row.previous_secret && row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now) {
    secrets.push(decryptToken(key, row.previous_secret, SECRET_PURPOSE));
  }
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    accountId: row.account_id,
    url: row.url,
    endpointStatus: row.endpoint_status,
    status: row.status,
    payload: row.payload,
    secrets,
  };
}

/**
 * The Standard Webhooks headers, signed by the `standardwebhooks` library
 * with every valid secret: during a rotation's overlap the signature header
 * carries one `v1,…` per secret, space-separated, as the specification allows.
 */
export function signedHeaders(delivery: Pick<DeliveryToSend, 'id' | 'payload' | 'secrets'>, at: Date): Record<string, string> {
  const signatures = delivery.secrets.map((secret) => new Webhook(secret).sign(delivery.id, at, delivery.payload));
  return {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  isSuccess: boolean;
}

/**
 * Records one attempt on the delivery and the endpoint's failing streak; an
 * endpoint that has failed every attempt for 3 days is disabled here. Returns
 * whether this call disabled it.
 */
export async function recordAttempt(em: EntityManager, deliveryId: string, endpointId: number, attempt: AttemptRecord, now: Date): Promise<boolean> {
  return em.transactional(async (tx) => {
    await tx.execute(`insert into webhook_attempt (delivery_id, attempted_at, status_code, error, duration_ms) values (?, ?, ?, ?, ?)`, [
      deliveryId,
      now,
      attempt.statusCode,
      attempt.error,
      attempt.durationMs,
    ]);
    await tx.execute(
      `update webhook_delivery set attempts = attempts + 1, last_status_code = ?, last_error = ?, last_duration_ms = ?
         ${attempt.isSuccess ? `, status = 'delivered', ended_at = ?` : ''} where id = ?`,
      attempt.isSuccess
        ? [attempt.statusCode, attempt.error, attempt.durationMs, now, deliveryId]
        : [attempt.statusCode, attempt.error, attempt.durationMs, deliveryId],
    );
    if (attempt.isSuccess) {
      await tx.execute('update webhook_endpoint set failing_since = null where id = ?', [endpointId]);
      return false;
    }
    await tx.execute('update webhook_endpoint set failing_since = coalesce(failing_since, ?) where id = ?', [now, endpointId]);
    const [streak]: { failing_since: Date }[] = await tx.execute('select failing_since from webhook_endpoint where id = ?', [endpointId]);
    if (streak && now.getTime() - new Date(streak.failing_since).getTime() >= FAILING_DISABLE_AFTER_MS) {
      return disableEndpoint(tx, endpointId, 'failing', now);
    }
    return false;
  });
}

/** Ends a delivery that will not be tried again (failed for good, or skipped: the endpoint is paused or disabled). */
export async function endDelivery(em: EntityManager, deliveryId: string, status: 'failed' | 'skipped', now: Date, reason?: string): Promise<void> {
  await em.execute(`update webhook_delivery set status = ?, ended_at = ?, last_error = coalesce(?, last_error) where id = ? and status = 'pending'`, [
    status,
    now,
    reason ?? null,
    deliveryId,
  ]);
}

/**
 * Disables an endpoint (410 Gone, or 3 days of failures) and mails its owner,
 * once per disabling: only the call that changes the status enqueues the mail.
 */
export async function disableEndpoint(em: EntityManager, endpointId: number, reason: 'gone' | 'failing', now: Date): Promise<boolean> {
  const [row]: { account_id: number; url: string; owner_email: string }[] = await em.execute(
    `update webhook_endpoint e set status = 'disabled', disabled_reason = ?, disabled_at = ?
       from account a where e.id = ? and a.id = e.account_id and e.status <> 'disabled'
     returning e.account_id, e.url, a.owner_email`,
    [reason, now, endpointId],
  );
  if (!row) return false;
  const why = reason === 'gone' ? 'it answered 410 Gone' : 'every delivery to it has failed for 3 days';
  const text = `We disabled your webhook endpoint ${row.url} because ${why}. No more events are sent to it. Resume it on the Webhooks page of your dashboard once it works again.`;
  await enqueueMail(em, {
    accountId: row.account_id,
    dedupeKey: `webhook-disabled:${endpointId}:${now.toISOString()}`,
    message: { to: row.owner_email, subject: 'A webhook endpoint was disabled', text, html: `<p>${escapeHtml(text)}</p>` },
  });
  return true;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
