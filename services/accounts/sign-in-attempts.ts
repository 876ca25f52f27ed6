import type { EntityManager } from '@mikro-orm/postgresql';

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_MAX_ATTEMPTS_PER_EMAIL = 10;

/**
 * Counts a sign-in attempt for an e-mail address in a fixed window and says
 * whether it may go ahead; better-auth limits each client address, this limits
 * each target address, so guesses spread over many clients get nowhere either.
 * One statement: concurrent attempts cannot both slip under the limit.
 */
export async function admitSignInAttempt(em: EntityManager, email: string, now: Date): Promise<{ isAdmitted: boolean; retryAfterSeconds: number }> {
  const windowFloor = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
  const rows: Array<{ attempts: number; window_start: Date }> = await em.getConnection().execute(
    `insert into sign_in_attempt (email, window_start, attempts) values (?, ?, 1)
     on conflict (email) do update set
       attempts = case when sign_in_attempt.window_start < ? then 1 else sign_in_attempt.attempts + 1 end,
       window_start = case when sign_in_attempt.window_start < ? then excluded.window_start else sign_in_attempt.window_start end
     returning attempts, window_start`,
    [email.trim().toLowerCase(), now, windowFloor, windowFloor],
  );
  const row = rows[0]!;
  const windowEndsMs = new Date(row.window_start).getTime() + SIGN_IN_WINDOW_MS;
  return {
    isAdmitted: row.attempts <= SIGN_IN_MAX_ATTEMPTS_PER_EMAIL,
    retryAfterSeconds: Math.max(1, Math.ceil((windowEndsMs - now.getTime()) / 1000)),
  };
}
