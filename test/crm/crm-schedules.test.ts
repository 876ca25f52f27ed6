// Next run times for every cadence and hour, and the Temporal Schedule of a
// product integration following its settings, plan and connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CADENCE_DAYS, CADENCES, CRM_SCHEDULE_JITTER_MS, nextRunAt } from '../../domain/crm/crm.ts';
import { CRM_ACCOUNT_ATTRIBUTE, CRM_PRODUCT_ATTRIBUTE, crmScheduleId, crmScheduleNextRuns, reconcileAllCrmSchedules, reconcileCrmSchedule } from '../../services/crm/schedules.ts';
import { saveCrmSettings, type CrmSettingsInput } from '../../services/crm/settings.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

describe('nextRunAt', () => {
  // Brute force: the first whole hour after `after` that is on one of the cadence's days at the chosen hour.
  const expected = (cadence: (typeof CADENCES)[number], hour: number, after: Date) => {
    let at = Math.floor(after.getTime() / 3_600_000) * 3_600_000;
    for (;;) {
      at += 3_600_000;
      const date = new Date(at);
      if (date.getUTCHours() === hour && CADENCE_DAYS[cadence].includes(date.getUTCDay())) return date;
    }
  };

  it('is the first matching hour after any moment, for each cadence and each hour', () => {
    const moments = ['2026-11-24T22:13:00Z', '2026-11-23T08:00:00Z', '2026-11-26T07:59:59Z', '2026-12-31T23:30:00Z', '2026-11-29T00:00:00Z'].map((text) => new Date(text));
    for (const cadence of CADENCES) {
      for (let hour = 0; hour < 24; hour++) {
        for (const after of moments) expect(nextRunAt(cadence, hour, after).toISOString(), `${cadence} ${hour} after ${after.toISOString()}`).toBe(expected(cadence, hour, after).toISOString());
      }
    }
  });

  it('matches the examples a person would check', () => {
    const tuesdayNight = new Date('2026-11-24T22:13:00Z');
    expect(nextRunAt('daily', 8, tuesdayNight).toISOString()).toBe('2026-11-25T08:00:00.000Z');
    expect(nextRunAt('daily', 23, tuesdayNight).toISOString()).toBe('2026-11-24T23:00:00.000Z');
    expect(nextRunAt('mon_thu', 8, tuesdayNight).toISOString()).toBe('2026-11-26T08:00:00.000Z');
    expect(nextRunAt('weekly_mon', 8, tuesdayNight).toISOString()).toBe('2026-11-30T08:00:00.000Z');
    // At the very hour, the run is the next one, not this one.
    expect(nextRunAt('weekly_mon', 8, new Date('2026-11-30T08:00:00Z')).toISOString()).toBe('2026-12-07T08:00:00.000Z');
  });
});

describe('CRM Schedules on Temporal', () => {
  let stack: TestStack;
  let accountId: number;
  let productId: number;
  const settings = (overrides: Partial<CrmSettingsInput> = {}): CrmSettingsInput => ({
    cadence: 'mon_thu', hourUtc: 8, scoreProperty: 'hubspotscore', minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: 10,
    chatWebhookUrl: null, digestEnabled: true, digestEmail: null, active: true, ...overrides,
  });
  const em = () => stack.orm.em.fork();
  const describeSchedule = () => stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe();

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false });
    accountId = await stack.createAccount('growth');
    await stack.createKey(accountId);
    [{ id: productId }] = await em().execute('select id from product_context where account_id = ?', [accountId]);
    await em().execute(
      `insert into crm_connection (account_id, portal_id, hub_user, connected_by, scopes, status, connected_at) values (?, 4000001, 'owner@portal.example', 'owner', '[]', 'connected', now())`,
      [accountId],
    );
  });
  afterAll(async () => {
    await stack?.temporal.schedule.getHandle(crmScheduleId(productId)).delete().catch(() => {});
    await stack?.stop();
  });

  it('creates one Schedule whose next times are the cadence hours plus at most the jitter', async () => {
    await saveCrmSettings(em(), accountId, productId, settings(), new Date());
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    const description = await describeSchedule();
    expect(description.state.paused).toBe(false);
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.spec.jitter).toBe(CRM_SCHEDULE_JITTER_MS);
    const next = description.info.nextActionTimes;
    expect(next.length).toBeGreaterThanOrEqual(3);
    let after = new Date();
    for (const at of next.slice(0, 3)) {
      const nominal = nextRunAt('mon_thu', 8, after);
      expect(at.getTime()).toBeGreaterThanOrEqual(nominal.getTime());
      expect(at.getTime()).toBeLessThanOrEqual(nominal.getTime() + CRM_SCHEDULE_JITTER_MS);
      after = nominal;
    }
    expect(description.action.type === 'startWorkflow' && description.action.workflowType).toBe('crmSyncWorkflow');
  });

  it('changes cadence and pause together, and leaves a current Schedule alone', async () => {
    await saveCrmSettings(em(), accountId, productId, settings({ cadence: 'weekly_mon', hourUtc: 17, active: false }), new Date());
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    let description = await describeSchedule();
    expect(description.state.paused).toBe(true);
    expect(description.state.note).toBe('paused');
    const nominal = nextRunAt('weekly_mon', 17, new Date());
    expect((await crmScheduleNextRuns(stack.temporal, productId))[0]?.getTime() ?? nominal.getTime()).toBeGreaterThanOrEqual(nominal.getTime());

    await saveCrmSettings(em(), accountId, productId, settings({ cadence: 'daily', hourUtc: 0, active: true }), new Date());
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    description = await describeSchedule();
    expect(description.state.paused).toBe(false);
    const first = description.info.nextActionTimes[0]!;
    expect(first.getUTCHours()).toBe(0);
    const updatedAt = description.info.lastUpdatedAt?.getTime();
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    expect((await describeSchedule()).info.lastUpdatedAt?.getTime()).toBe(updatedAt);
  });

  it('is paused on a plan without the CRM integration and without a connection, and resumes after', async () => {
    await em().execute(`update account set plan = 'starter' where id = ?`, [accountId]);
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    expect((await describeSchedule()).state).toMatchObject({ paused: true, note: 'plan starter has no CRM integration' });
    await em().execute(`update account set plan = 'scale' where id = ?`, [accountId]);
    await em().execute(`update crm_connection set status = 'disconnected' where account_id = ?`, [accountId]);
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    expect((await describeSchedule()).state).toMatchObject({ paused: true, note: 'CRM not connected' });
    await em().execute(`update crm_connection set status = 'connected' where account_id = ?`, [accountId]);
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    expect((await describeSchedule()).state.paused).toBe(false);
  });

  it('is found by account and product, reconciled at start, and deleted with its settings', async () => {
    const query = `CrmAccountId = "${accountId}" AND CrmProductId = "${productId}"`;
    let found: string[] = [];
    for (let attempt = 0; attempt < 50 && found.length === 0; attempt++) {
      found = [];
      for await (const schedule of stack.temporal.schedule.list({ query })) found.push(schedule.scheduleId);
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(found).toEqual([crmScheduleId(productId)]);

    await em().execute('delete from crm_integration where product_id = ?', [productId]);
    await reconcileAllCrmSchedules(stack.temporal, em(), stack.config.temporal.taskQueue);
    await expect(describeSchedule()).rejects.toThrow();
  });

  it('leaves alone the Schedules of another deployment sharing the namespace (their runs start on another queue)', async () => {
    const foreignId = crmScheduleId(987_654_321);
    const foreign = await stack.temporal.schedule.create({
      scheduleId: foreignId,
      spec: { calendars: [{ hour: 8 }] },
      action: { type: 'startWorkflow', workflowType: 'crmSyncWorkflow', taskQueue: 'another-deployment-crm', args: [{ productId: 987_654_321, trigger: 'schedule' }] },
      state: { paused: true },
      typedSearchAttributes: [{ key: CRM_ACCOUNT_ATTRIBUTE, value: '1' }, { key: CRM_PRODUCT_ATTRIBUTE, value: '987654321' }],
    });
    try {
      let listed = false;
      for (let attempt = 0; attempt < 50 && !listed; attempt++) {
        for await (const schedule of stack.temporal.schedule.list({ query: 'CrmProductId = "987654321"' })) listed ||= schedule.scheduleId === foreignId;
        if (!listed) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(listed).toBe(true);
      await reconcileAllCrmSchedules(stack.temporal, em(), stack.config.temporal.taskQueue);
      expect((await foreign.describe()).action).toMatchObject({ taskQueue: 'another-deployment-crm' });
    } finally {
      await foreign.delete();
    }
  });
});
