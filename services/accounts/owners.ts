import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import { DEFAULT_LANGUAGE } from '../../domain/research/languages.ts';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { createAccount } from './accounts.ts';
import { lockAccount } from '../billing/credits.ts';

/**
 * The one owner of an account is a better-auth user (docs/decisions.md#the-dashboard). Sign-up makes a Free account; an account an operator made for
 * the same e-mail is claimed instead, so its keys and credits stay.
 */
export async function linkAccountOwner(em: EntityManager, user: { id: string; email: string }, now: Date): Promise<IAccount> {
  const email = user.email.trim().toLowerCase();
  const unclaimed = await em.findOne(Account, { ownerEmail: email, ownerUserId: null });
  if (unclaimed) {
    unclaimed.ownerUserId = user.id;
    await em.flush();
    return unclaimed;
  }
  const account = await createAccount(em, { ownerEmail: email, plan: 'free', language: DEFAULT_LANGUAGE }, now);
  account.ownerUserId = user.id;
  await em.flush();
  return account;
}

export async function hasUnclaimedAccount(em: EntityManager, email: string): Promise<boolean> {
  return (await em.count(Account, { ownerEmail: email.trim().toLowerCase(), ownerUserId: null })) > 0;
}

/** The user's account, with its billing cycle rolled over if a new one has begun since it was last touched. */
export async function findAccountOfUser(em: EntityManager, userId: string, now: Date): Promise<IAccount | null> {
  const account = await em.findOne(Account, { ownerUserId: userId });
  if (!account || billingCycleAt(account.billingAnchor, now).start.getTime() <= account.cycleStart.getTime()) return account;
  return em.transactional((tx) => lockAccount(tx, account.id, now));
}

export async function isAccountEmail(em: EntityManager, email: string): Promise<boolean> {
  return (await em.count(Account, { ownerEmail: email.trim().toLowerCase() })) > 0;
}

/** The account's e-mail follows its owner's confirmed sign-in address. */
export async function followOwnerEmail(em: EntityManager, user: { id: string; email: string }): Promise<void> {
  await em.getConnection().execute('update account set owner_email = ? where owner_user_id = ? and owner_email <> ?', [
    user.email.trim().toLowerCase(),
    user.id,
    user.email.trim().toLowerCase(),
  ]);
}
