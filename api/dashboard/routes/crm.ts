import Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import { nextRunAt, type CrmSettings } from '../../../domain/crm/crm.ts';
import { crmHoldOffText } from '../../../domain/crm/messages.ts';
import { AppError } from '../../../domain/errors.ts';
import { PLANS } from '../../../domain/billing/plans.ts';
import { CRM_PROVIDER_LABELS, CRM_PROVIDERS, type CrmConnectionRef, type CrmProvider } from '../../../integrations/crm/adapter.ts';
import { configuredProviders } from '../../../integrations/crm/config.ts';
import { CrmAuthRevoked, CrmRejected, CrmUnavailable } from '../../../integrations/crm/errors.ts';
import type { CrmProviderKits } from '../../../integrations/crm/providers.ts';
import type { Crm } from '../../../services/crm/crm.ts';
import { connectionRef, consumeOAuthState, createOAuthState, getConnection, saveConnection } from '../../../services/crm/connections.ts';
import { previewCrmRun } from '../../../services/crm/candidates.ts';
import { portalProperties } from '../../../services/crm/portal-metadata.ts';
import { crmScheduleNextRuns } from '../../../services/crm/schedules.ts';
import { crmRunPlaces, takeCrmRunTurn } from '../../../services/crm/run-turns.ts';
import { CrmSettingsInvalid, defaultCrmSettings, getCrmSettings, saveCrmSettings, validateCrmSettings } from '../../../services/crm/settings.ts';
import { crmAdapterOf } from '../../../services/crm/sync.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { Client } from '@temporalio/client';
import { refuseNulCharacters } from '../../nul-characters.ts';
import { readJsonBody } from '../../read-json-body.ts';
import type { DashboardState } from '../guard.ts';
import { idParam } from './ids.ts';

export interface CrmRouteDeps {
  crm: Crm | null;
  temporal: Client;
  publicUrl: string;
  clock: () => Date;
  logger: Logger;
}

export const CRM_CALLBACK_PATH = '/app/api/crm/callback';

/**
 * The CRM page's API (docs/crm.md; docs/decisions.md#crm-integration): the
 * account's one CRM connection (choose a configured CRM, connect through its
 * consent page, disconnect to choose again), each product's settings, its
 * next run, "Run now", a preview of the next run's contacts, and the last
 * runs with their contacts.
 */
export function crmRouter(deps: CrmRouteDeps): Router<DashboardState> {
  const router = new Router<DashboardState>();
  const redirectUri = `${deps.publicUrl}${CRM_CALLBACK_PATH}`;

  const crmOf = () => {
    if (!deps.crm) throw new AppError('crm_not_configured', 'No CRM app is configured on this server (docs/configuration.md#crm).');
    return deps.crm;
  };
  const requirePlan = (ctx: { state: DashboardState }) => {
    if (!PLANS[ctx.state.account.plan].hasCrmIntegration) {
      throw new AppError('crm_plan_required', 'The CRM integration comes with the Growth and Scale plans. Upgrade on the Billing page.');
    }
  };
  const productOf = async (em: EntityManager, accountId: number, raw: string | undefined) => {
    const productId = idParam(raw, 'product');
    const [product]: Array<{ id: number; name: string }> = await em.execute('select id, name from product_context where id = ? and account_id = ?', [productId, accountId]);
    if (!product) throw new AppError('not_found', 'No such product.');
    return product;
  };
  const requireConnection = async (em: EntityManager, accountId: number, action: string) => {
    const connection = await connectionRef(em, accountId);
    if (!connection) throw new AppError('crm_not_connected', `Connect a CRM ${action}.`);
    return connection;
  };
  const labelOf = (connection: { provider: CrmProvider } | null) => (connection ? CRM_PROVIDER_LABELS[connection.provider] : 'the CRM');
  const unavailable = (connection: CrmConnectionRef | null) => (error: unknown): never => {
    const crm = labelOf(connection);
    if (error instanceof CrmAuthRevoked) throw new AppError('crm_not_connected', `${crm} no longer accepts the connection. Connect ${crm} again.`);
    // An allowance spent holds the CRM off for hours: say which and until when, not "a minute".
    if (error instanceof CrmUnavailable && error.holdOff) throw new AppError('crm_unavailable', crmHoldOffText(crm, error.holdOff));
    if (error instanceof CrmUnavailable) throw new AppError('crm_unavailable', `${crm} cannot be reached right now. Try again in a minute.`);
    // Refused for good: most often a setting the CRM no longer matches (a lead score field deleted there).
    if (error instanceof CrmRejected) throw new AppError('invalid_request', `${crm} refused it: ${error.message}`);
    throw error;
  };
  const kitOf = (crm: Crm, provider: CrmProvider) => {
    const kit = crm.kits[provider];
    if (!kit) throw new AppError('crm_not_configured', `${CRM_PROVIDER_LABELS[provider]} is not configured on this server.`);
    return kit;
  };

  router.get('/crm', async (ctx) => {
    const { account, em } = ctx.state;
    const connection = await getConnection(em, account.id);
    const products: Array<{ id: number; name: string; active: boolean | null; paused_reason: string | null }> = await em.execute(
      `select p.id, p.name, i.active, i.paused_reason from product_context p left join crm_integration i on i.product_id = p.id where p.account_id = ? order by p.id`,
      [account.id],
    );
    ctx.body = {
      plan: account.plan,
      planHasCrm: PLANS[account.plan].hasCrmIntegration,
      configured: deps.crm !== null,
      /** The CRMs an account can connect here, in the order offered. */
      providers: deps.crm ? configuredProviders(deps.crm.config).map((provider) => ({ provider, label: CRM_PROVIDER_LABELS[provider] })) : [],
      connection: connection && connection.status === 'connected' ? connection : null,
      lostConnection: connection && connection.status === 'revoked' ? connection : null,
      products: products.map((product) => ({ id: product.id, name: product.name, active: product.active ?? false, pausedReason: product.paused_reason, hasSettings: product.active !== null })),
    };
  });

  router.post('/crm/connect', async (ctx) => {
    requirePlan(ctx);
    const crm = crmOf();
    const body = (await readJsonBody(ctx)) as { productId?: unknown; provider?: unknown } | undefined;
    const product = await productOf(ctx.state.em, ctx.state.account.id, String(body?.productId ?? ''));
    // Before there was a choice the page sent no provider: HubSpot.
    const provider = body?.provider ?? 'hubspot';
    if (!CRM_PROVIDERS.includes(provider as CrmProvider)) {
      throw new AppError('invalid_request', `provider must be one of ${CRM_PROVIDERS.join(', ')}.`, { fields: { provider: 'Choose HubSpot, Pipedrive or Salesforce.' } });
    }
    const kit = kitOf(crm, provider as CrmProvider);
    // One CRM per account: another one's live connection is disconnected first (the page says so), then the choice is free again.
    const current = await connectionRef(ctx.state.em, ctx.state.account.id);
    if (current && current.provider !== kit.provider) {
      throw new AppError('crm_already_connected', `${CRM_PROVIDER_LABELS[current.provider]} is connected. Disconnect it before connecting ${CRM_PROVIDER_LABELS[kit.provider]}.`);
    }
    const { state, codeChallenge } = await createOAuthState(ctx.state.em, {
      accountId: ctx.state.account.id, productId: product.id, provider: kit.provider, usesPkce: kit.oauth.usesPkce, sessionUserId: ctx.state.user.id, now: deps.clock(),
    });
    ctx.body = { authorizeUrl: kit.oauth.authorizeUrl({ state, redirectUri, codeChallenge }) };
  });

  // The CRM sends the browser back here: a top-level GET, which carries the session cookie (SameSite=Lax).
  router.get('/crm/callback', async (ctx) => {
    const crm = crmOf();
    const back = (query: string) => ctx.redirect(`${deps.publicUrl}/app/crm${query}`);
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
    const claimed = state ? await consumeOAuthState(ctx.state.em, state, ctx.state.user.id, deps.clock()) : null;
    if (!claimed || claimed.accountId !== ctx.state.account.id) return back('?error=state');
    if (typeof ctx.query.error === 'string') return back(`/${claimed.productId}?error=denied`);
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : '';
    try {
      const grant = await kitOf(crm, claimed.provider).oauth.exchangeCode({ code, redirectUri, codeVerifier: claimed.codeVerifier });
      await saveConnection(ctx.state.em, crm.config.tokenKey, { accountId: claimed.accountId, provider: claimed.provider, grant, connectedBy: ctx.state.user.email, now: deps.clock() });
    } catch (error) {
      deps.logger.warn({ err: error, accountId: claimed.accountId, provider: claimed.provider }, 'CRM connection failed');
      return back(`/${claimed.productId}?error=exchange`);
    }
    const products: Array<{ product_id: number }> = await ctx.state.em.execute('select product_id from crm_integration where account_id = ?', [claimed.accountId]);
    await crm.reconcile(products.map((row) => row.product_id));
    back(`/${claimed.productId}?connected=1`);
  });

  router.post('/crm/disconnect', async (ctx) => {
    const crm = crmOf();
    try {
      const paused = await crm.tokens.disconnect(ctx.state.account.id);
      ctx.body = { disconnected: true, pausedProducts: paused };
    } catch (error) {
      unavailable(await connectionRef(ctx.state.em, ctx.state.account.id))(error);
    }
  });

  router.get('/crm/products/:productId', async (ctx) => {
    const { account, em } = ctx.state;
    const product = await productOf(em, account.id, ctx.params.productId);
    const stored = await getCrmSettings(em, product.id);
    const portal = await connectionRef(em, account.id);
    const portalId = portal?.portalId ?? null;
    // The connected CRM's default lead score; before one is connected, that of the only CRM offered (none when several are).
    const offered = deps.crm ? configuredProviders(deps.crm.config) : [];
    const scoreOf = (provider: CrmProvider | undefined) => (provider ? (deps.crm?.kits[provider]?.defaultScoreField ?? null) : null);
    const settings = stored ?? defaultCrmSettings(account.id, product.id, scoreOf(portal?.provider ?? (offered.length === 1 ? offered[0] : undefined)));
    // Read every 2 s while a run is open: our own records only, never the CRM (the score properties have their own route).
    const scheduled = stored ? await crmScheduleNextRuns(deps.temporal, product.id).catch(() => []) : [];
    const isRunning = stored && stored.active && portalId !== null && PLANS[account.plan].hasCrmIntegration;
    ctx.body = {
      product,
      saved: stored !== null,
      settings: withoutAccount(settings),
      chatWebhookDisabled: stored?.chatWebhookDisabled ?? null,
      nextRunAt: isRunning ? (scheduled[0] ?? nextRunAt(settings.cadence, settings.hourUtc, deps.clock())).toISOString() : null,
      runs: await recentRuns(em, account.id, product.id, deps.crm?.kits ?? {}, portal),
    };
  });

  router.put('/crm/products/:productId/settings', async (ctx) => {
    requirePlan(ctx);
    const crm = crmOf();
    const { account, em } = ctx.state;
    const product = await productOf(em, account.id, ctx.params.productId);
    const body = await readJsonBody(ctx);
    refuseNulCharacters(body);
    const connection = await connectionRef(em, account.id);
    const portal = connection ? await propertiesOf(crm, em, connection, false) : null;
    try {
      const input = await validateCrmSettings(body, {
        crm: connection ? labelOf(connection) : undefined,
        scoreProperties: portal ? portal.scoreProperties.map((each) => each.name) : null, mappableProperties: portal?.mappableProperties ?? null, outbound: crm.config.outbound,
      });
      if (input.active && !connection) throw new CrmSettingsInvalid({ active: 'Connect a CRM before turning the integration on.' });
      // Contacts or Leads is Salesforce's alone.
      const saved = await saveCrmSettings(em, account.id, product.id, { ...input, crmObject: connection?.provider === 'salesforce' ? input.crmObject : null }, deps.clock());
      await crm.reconcile([product.id]);
      ctx.body = { settings: withoutAccount(saved) };
    } catch (error) {
      if (!(error instanceof CrmSettingsInvalid)) throw error;
      const [first] = Object.entries(error.fields);
      throw new AppError('invalid_request', first ? first[1]! : 'Invalid settings.', { fields: error.fields });
    }
  });

  /**
   * The connected portal's fields that can be a lead score, and those a
   * write-rule mapping can write, read from the CRM once and kept
   * (services/crm/portal-metadata.ts); `refresh` reads them again, for a
   * field created in the CRM since.
   */
  const propertiesOf = (crm: Crm, em: EntityManager, connection: CrmConnectionRef, refresh: boolean) =>
    portalProperties(em, { accountId: connection.accountId, provider: connection.provider, portalId: connection.portalId, refresh, now: deps.clock() }, () => crmAdapterOf(crm.syncDeps, connection).fieldMetadata())
      .catch(unavailable(connection));
  const scorePropertiesReply = async (ctx: { state: DashboardState; body: unknown }, refresh: boolean) => {
    requirePlan(ctx);
    const crm = crmOf();
    const { account, em } = ctx.state;
    const connection = await requireConnection(em, account.id, 'to choose a lead score field');
    const read = await propertiesOf(crm, em, connection, refresh);
    ctx.body = {
      provider: connection.provider, portalId: read.portalId, properties: read.scoreProperties, mappableProperties: read.mappableProperties, readAt: read.readAt.toISOString(),
      defaultScoreProperty: kitOf(crm, connection.provider).defaultScoreField,
    };
  };
  router.get('/crm/score-properties', (ctx) => scorePropertiesReply(ctx, false));
  router.post('/crm/score-properties/refresh', (ctx) => scorePropertiesReply(ctx, true));

  router.get('/crm/products/:productId/preview', async (ctx) => {
    requirePlan(ctx);
    const crm = crmOf();
    const { account, em } = ctx.state;
    const product = await productOf(em, account.id, ctx.params.productId);
    const connection = await requireConnection(em, account.id, 'to see which contacts a run would take');
    const kit = kitOf(crm, connection.provider);
    const settings = (await getCrmSettings(em, product.id)) ?? defaultCrmSettings(account.id, product.id, kit.defaultScoreField);
    if (!settings.scoreProperty) throw new AppError('invalid_request', `Choose the lead score field and save before previewing: ${CRM_PROVIDER_LABELS[kit.provider]} has no default one.`);
    const preview = await previewCrmRun(crm.syncDeps, settings, connection.portalId).catch(unavailable(connection));
    const link = (contactId: string) => kit.recordUrl(connection, contactId);
    ctx.body = {
      taken: preview.taken.map((contact) => ({ ...contact, recordUrl: link(contact.contactId), writes: preview.writes[contact.contactId] ?? [] })),
      skipped: preview.skipped.map((contact) => ({ ...contact, recordUrl: link(contact.contactId), writes: [] })),
      // What the run costs: a credit per contact taken, those researched again (re-enrichment) among them.
      credits: preview.taken.length,
      reEnriched: preview.taken.filter((contact) => contact.enrichedAt).length,
      reEnrichAfterDays: settings.reEnrichAfterDays,
    };
  });

  /**
   * Our fields in the CRM for this product, created now rather than at the
   * first run; where the CRM's API cannot create them for this user
   * (Salesforce without the rights), the admin's steps.
   */
  router.post('/crm/products/:productId/fields', async (ctx) => {
    requirePlan(ctx);
    const crm = crmOf();
    const { account, em } = ctx.state;
    const product = await productOf(em, account.id, ctx.params.productId);
    const connection = await requireConnection(em, account.id, 'to set up its fields');
    const settings = (await getCrmSettings(em, product.id)) ?? defaultCrmSettings(account.id, product.id);
    ctx.body = await crmAdapterOf(crm.syncDeps, connection, settings.crmObject ?? null).ensureOwnFields({ id: product.id, name: product.name }).catch(unavailable(connection));
  });

  router.post('/crm/products/:productId/run', async (ctx) => {
    requirePlan(ctx);
    const crm = crmOf();
    const { account, em } = ctx.state;
    const product = await productOf(em, account.id, ctx.params.productId);
    await requireConnection(em, account.id, 'before running a sync');
    const settings = await getCrmSettings(em, product.id);
    if (!settings?.active) throw new AppError('invalid_request', 'The integration is paused. Turn it on and save before running it.');
    const runId = await crm.runNow(account.id, product.id);
    ctx.status = 202;
    ctx.body = { runId, ...(await runStateOf(em, crm, account.id, runId, deps.clock)) };
  });

  return router;
}

/**
 * What became of a run just started, as soon as its workflow has recorded it
 * (the CRM worker's first step, well under a second): `running`, or `queued`
 * with its place among the account's runs waiting their turn
 * (docs/crm.md#runs-waiting-their-turn). A run recorded `queued` is given
 * its turn here if it has one (the same claim its workflow makes next), so
 * the answer is settled, not a moment in its start. `starting` if not
 * recorded within a few seconds (a CRM worker busy or restarting): the
 * page's list of runs says which soon after.
 */
async function runStateOf(
  em: EntityManager, crm: Crm, accountId: number, runId: string, clock: () => Date,
): Promise<{ state: 'starting' | 'running' | 'queued' | 'not_run'; place: number | null }> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const [run]: Array<{ status: string }> = await em.execute('select status from crm_sync_run where id = ?', [runId]);
    if (run?.status === 'queued') {
      const turn = await takeCrmRunTurn(em, { runId, accountId, cap: crm.runsPerAccount, now: clock() });
      return turn.started ? { state: 'running', place: null } : { state: 'queued', place: turn.place };
    }
    if (run?.status === 'not_run') return { state: 'not_run', place: null };
    if (run) return { state: 'running', place: null };
    if (Date.now() > deadline) return { state: 'starting', place: null };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function withoutAccount(settings: CrmSettings & { chatWebhookDisabled?: unknown }) {
  const { accountId: _account, chatWebhookDisabled: _disabled, ...rest } = settings;
  return rest;
}

/** The product's last runs; a contact's link while its run's portal is still the connected one. */
async function recentRuns(em: EntityManager, accountId: number, productId: number, kits: CrmProviderKits, connection: CrmConnectionRef | null) {
  const runs: Array<{
    id: string; provider: CrmProvider; portal_id: string | null; trigger: string; status: string; reason: string | null; found: number; skipped: Record<string, number>;
    researched: number; failed: number; credits_used: number; started_at: Date; finished_at: Date | null; waiting_until: Date | null; waiting_reason: string | null;
  }> = await em.execute('select * from crm_sync_run where product_id = ? order by started_at desc limit 10', [productId]);
  const contacts: Array<{
    run_id: string; contact_id: string; email: string | null; name: string | null; score: string | null; outcome: string; skip_reason: string | null; research_id: string | null; error: string | null;
  }> =
    runs.length === 0
      ? []
      : await em.execute(`select run_id, contact_id, email, name, score, outcome, skip_reason, research_id, error from crm_sync_contact where run_id in (${runs.map(() => '?').join(',')}) order by position`, runs.map((run) => run.id));
  const now = Date.now();
  const places = runs.some((run) => run.status === 'queued') ? await crmRunPlaces(em, accountId) : new Map<string, number>();
  return runs.map((run) => ({
    id: run.id,
    trigger: run.trigger,
    status: run.status,
    reason: run.reason,
    /** A running run waiting out its CRM's allowance: why, and until when. */
    waiting: run.status === 'running' && run.waiting_until && new Date(run.waiting_until).getTime() > now
      ? crmHoldOffText(CRM_PROVIDER_LABELS[run.provider], { reason: run.waiting_reason ?? `${CRM_PROVIDER_LABELS[run.provider]} holds calls off`, until: new Date(run.waiting_until) })
      : null,
    /** A queued run's place among the account's runs waiting their turn: 1 starts next. */
    place: places.get(run.id) ?? null,
    counts: { found: run.found, skipped: run.skipped, researched: run.researched, failed: run.failed, creditsUsed: run.credits_used },
    startedAt: new Date(run.started_at).toISOString(),
    finishedAt: run.finished_at ? new Date(run.finished_at).toISOString() : null,
    contacts: contacts
      .filter((contact) => contact.run_id === run.id)
      .map((contact) => ({
        contactId: contact.contact_id, email: contact.email, name: contact.name, score: contact.score === null ? null : Number(contact.score), outcome: contact.outcome,
        skipReason: contact.skip_reason, researchId: contact.research_id, error: contact.outcome === 'failed' ? contact.error : null,
        recordUrl: connection && run.provider === connection.provider && run.portal_id === connection.portalId ? (kits[run.provider]?.recordUrl(connection, contact.contact_id) ?? null) : null,
      })),
  }));
}
