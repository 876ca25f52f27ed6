import type { EntityManager } from '@mikro-orm/postgresql';
import type { IAccount } from '../../db/entities/account.ts';
import { USAGE_ALERT_THRESHOLDS, type UsageAlertThreshold } from '../../db/entities/usage-alert.ts';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { usageAlertEmail } from '../../integrations/mail/templates/usage-alert.ts';
import { enqueueMail, withdrawMail } from '../mail/outbox.ts';

export interface UsageAlertSettings {
  /** Base address of the service: the alert's upgrade link is its billing page. */
  publicUrl: string;
}

/** The thresholds a credit that took usage from `usedBefore` to `usedAfter` crossed (integer percent, no rounding). */
export function thresholdsCrossed(usedBefore: number, usedAfter: number, limit: number): UsageAlertThreshold[] {
  if (limit <= 0) return [];
  return USAGE_ALERT_THRESHOLDS.filter((percent) => usedBefore * 100 < percent * limit && usedAfter * 100 >= percent * limit);
}

/**
 * How long a lower alert waits before it goes out. A burst (a list's fan-out, many requests at once) takes credits
 * within seconds; if it goes on past the next threshold, the owner gets the one mail that matters, not two a moment apart.
 */
export const LOWER_ALERT_HOLD_SECONDS = 60;

export function usageAlertDedupeKey(accountId: number, cycleStart: Date, threshold: UsageAlertThreshold): string {
  return `usage-${threshold}:${accountId}:${cycleStart.toISOString()}`;
}

/**
 * docs/decisions.md#plans: alerts at 75 % and 95 % of the limit in force, each at
 * most once per cycle, to the account e-mail unless turned off; when one credit
 * crosses both, only the 95 % mail goes out and both count as sent; refunds do
 * not re-arm. A burst that crosses both within a minute sends only the 95 % mail
 * too: the 75 % one waits that long in the outbox and is withdrawn. Runs in the credit's transaction, on the account row it locked.
 * Every threshold reached is recorded (usage_alert, unique per account, cycle
 * and threshold) whether or not a mail goes out. True when a mail was enqueued.
 */
export async function recordUsageAlerts(em: EntityManager, account: IAccount, usedBefore: number, settings: UsageAlertSettings): Promise<boolean> {
  const { creditsUsed: used, creditLimit: limit, cycleStart } = account;
  const crossed = thresholdsCrossed(usedBefore, used, limit);
  if (crossed.length === 0) return false;
  // Reached by now: the crossed ones and any lower one, so a lower alert can never follow a higher one.
  const reached = USAGE_ALERT_THRESHOLDS.filter((percent) => used * 100 >= percent * limit);
  const top = Math.max(...crossed) as UsageAlertThreshold;
  const isMailed = (threshold: number) => threshold === top && account.usageAlertsEnabled;
  const inserted: Array<{ threshold: number }> = await em.execute(
    `insert into usage_alert (account_id, cycle_start, threshold, used, "limit", is_emailed, created_at)
     values ${reached.map(() => '(?, ?, ?, ?, ?, ?, now())').join(', ')}
     on conflict (account_id, cycle_start, threshold) do nothing returning threshold`,
    reached.flatMap((threshold) => [account.id, cycleStart, threshold, used, limit, isMailed(threshold)]),
  );
  if (!account.usageAlertsEnabled || !inserted.some((row) => row.threshold === top)) return false;
  await withdrawLowerAlerts(em, account, top);
  const message = usageAlertEmail({
    to: account.ownerEmail,
    used,
    limit,
    percent: Math.floor((used * 100) / limit),
    cycleEnd: billingCycleAt(account.billingAnchor, cycleStart).end,
    publicUrl: settings.publicUrl,
  });
  const isHighest = top === USAGE_ALERT_THRESHOLDS[USAGE_ALERT_THRESHOLDS.length - 1];
  const holdSeconds = isHighest ? 0 : LOWER_ALERT_HOLD_SECONDS;
  return enqueueMail(em, { accountId: account.id, dedupeKey: usageAlertDedupeKey(account.id, cycleStart, top), message, holdSeconds });
}

/** A lower alert still waiting in the outbox is taken back, and recorded as not mailed: the higher one says it all. */
async function withdrawLowerAlerts(em: EntityManager, account: IAccount, top: UsageAlertThreshold): Promise<void> {
  for (const lower of USAGE_ALERT_THRESHOLDS.filter((threshold) => threshold < top)) {
    if (!(await withdrawMail(em, usageAlertDedupeKey(account.id, account.cycleStart, lower)))) continue;
    await em.execute('update usage_alert set is_emailed = false where account_id = ? and cycle_start = ? and threshold = ?', [account.id, account.cycleStart, lower]);
  }
}
