import type { Context } from '@temporalio/activity';
import type { CallCaps } from '../domain/research/call-caps.ts';
import { KeyedSemaphore } from '../lib/keyed-semaphore.ts';
import { observeCallCounts } from '../lib/metrics.ts';

/**
 * Each account's provider and model calls in flight in this process, capped
 * (domain/research/call-caps.ts). The account comes with the job's plan
 * (its fairness key, `account-<id>`); a run planned before plans carried it
 * has none and is not capped.
 */
export interface CallTurns {
  provider: KeyedSemaphore;
  model: KeyedSemaphore;
}

export function createCallTurns(caps: CallCaps): CallTurns {
  const turns = { provider: new KeyedSemaphore(caps.providerCallsPerAccount), model: new KeyedSemaphore(caps.modelCallsPerAccount) };
  observeCallCounts(() => ({
    provider: { inFlight: turns.provider.holding(), waiting: turns.provider.waiting() },
    model: { inFlight: turns.model.holding(), waiting: turns.model.waiting() },
  }));
  return turns;
}

/**
 * Runs `call` in its account's turn. The wait ends with the activity's
 * cancellation (the job's deadline), and takes no place then.
 */
export async function inAccountTurn<T>(semaphore: KeyedSemaphore, account: string | undefined, context: Context, call: () => Promise<T>): Promise<T> {
  if (account === undefined) return call();
  return semaphore.run(account, call, context.cancellationSignal);
}
