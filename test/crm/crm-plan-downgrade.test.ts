// A plan change below Growth, as Stripe reports it through the real webhook
// route, pauses the account's CRM integrations with that reason, and their
// Schedules with them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { scheduleDowngrade, startCheckout } from '../../services/billing/billing.ts';
import { crmScheduleId, reconcileCrmSchedule } from '../../services/crm/schedules.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { CHECKOUT_URLS, clickCheckout, startBillingStack, type BillingStack } from '../billing/billing-stack.ts';
import { crmTestSettings, startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';

let b: BillingStack;
let crm: CrmFixture;
let productId: number;
const em = () => b.stack.orm.em.fork();

beforeAll(async () => {
  crm = await startCrmFixture({ world: createWorld(), em });
  // The API reads its HubSpot app from the environment, as in production.
  Object.assign(process.env, crm.env);
  b = await startBillingStack();
});
afterAll(async () => {
  await b?.stack.temporal.schedule.getHandle(crmScheduleId(productId)).delete().catch(() => {});
  await b?.stop();
  await crm?.stop();
  for (const name of Object.keys(crm?.env ?? {})) delete process.env[name];
});

describe('plan changes and the CRM integration', () => {
  it('a downgrade to Starter taking effect pauses every integration with the reason, and their Schedules', async () => {
    const accountId = await b.stack.createAccount('free');
    const { url } = await startCheckout(em(), b.billing, accountId, 'growth', CHECKOUT_URLS);
    expect((await clickCheckout(url, 'Pay')).status).toBe(303);
    await b.settled();
    expect((await b.account(accountId)).plan).toBe('growth');

    await b.stack.createKey(accountId);
    [{ id: productId }] = await em().execute('select id from product_context where account_id = ?', [accountId]);
    await crm.connect(em(), accountId);
    await saveCrmSettings(em(), accountId, productId, crmTestSettings(), new Date());
    await reconcileCrmSchedule(b.stack.temporal, em(), productId, b.stack.config.temporal.taskQueue);
    expect((await b.stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe()).state.paused).toBe(false);

    const start = await b.account(accountId);
    const cycle = billingCycleAt(start.billingAnchor, start.cycleStart);
    await scheduleDowngrade(em(), b.billing, accountId, 'starter');
    await b.settled();
    // Pending only: still Growth, still running.
    const [pending] = await em().execute('select active, paused_reason from crm_integration where product_id = ?', [productId]);
    expect(pending).toEqual({ active: true, paused_reason: null });

    await b.advanceClockTo(new Date(cycle.end.getTime() + 3600_000));
    expect((await b.account(accountId)).plan).toBe('starter');
    const [after] = await em().execute('select active, paused_reason from crm_integration where product_id = ?', [productId]);
    expect(after).toEqual({ active: false, paused_reason: 'plan' });
    const schedule = await b.stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe();
    expect(schedule.state.paused).toBe(true);
  });
});
