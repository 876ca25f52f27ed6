import { describe, expect, it } from 'vitest';
import { KeyedSemaphore } from '../../lib/keyed-semaphore.ts';

/** A call that ends when the test says so. */
function held() {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { work: () => done, end };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedSemaphore', () => {
  it('admits up to its limit per key, then the waiters in the order they came', async () => {
    const semaphore = new KeyedSemaphore(2);
    const started: string[] = [];
    const calls = ['a1', 'a2', 'a3', 'a4'].map((name) => {
      const call = held();
      const running = semaphore.run('a', async () => {
        started.push(name);
        await call.work();
      });
      return { ...call, running };
    });
    await tick();
    expect(started).toEqual(['a1', 'a2']);
    expect([semaphore.holding(), semaphore.waiting()]).toEqual([2, 2]);

    calls[1]!.end();
    await calls[1]!.running;
    await tick();
    expect(started).toEqual(['a1', 'a2', 'a3']);
    calls[0]!.end();
    await calls[0]!.running;
    await tick();
    expect(started).toEqual(['a1', 'a2', 'a3', 'a4']);
    calls[2]!.end();
    calls[3]!.end();
    await Promise.all(calls.map((call) => call.running));
    expect([semaphore.holding(), semaphore.waiting()]).toEqual([0, 0]);
  });

  it('never delays one key for another at its limit', async () => {
    const semaphore = new KeyedSemaphore(1);
    const busy = held();
    const running = semaphore.run('busy', busy.work);
    const queued = semaphore.run('busy', async () => 'late');
    expect(await semaphore.run('other', async () => 'at once')).toBe('at once');
    expect(semaphore.waiting()).toBe(1);
    busy.end();
    await running;
    expect(await queued).toBe('late');
  });

  it('hands a freed place to the next waiter before any newcomer', async () => {
    const semaphore = new KeyedSemaphore(1);
    const first = held();
    const order: string[] = [];
    const running = semaphore.run('a', first.work);
    const waiter = semaphore.run('a', async () => void order.push('waiter'));
    first.end();
    await running;
    // A newcomer arriving right after the release finds the place taken by the waiter.
    const newcomer = semaphore.run('a', async () => void order.push('newcomer'));
    await Promise.all([waiter, newcomer]);
    expect(order).toEqual(['waiter', 'newcomer']);
  });

  it('frees its place when the work fails', async () => {
    const semaphore = new KeyedSemaphore(1);
    await expect(semaphore.run('a', async () => Promise.reject(new Error('provider down')))).rejects.toThrow('provider down');
    expect(await semaphore.run('a', async () => 'next')).toBe('next');
  });

  it('a wait ended by its signal rejects with the reason and takes no place', async () => {
    const semaphore = new KeyedSemaphore(1);
    const busy = held();
    const running = semaphore.run('a', busy.work);
    const controller = new AbortController();
    let didRun = false;
    const cancelled = semaphore.run('a', async () => void (didRun = true), controller.signal);
    const after = semaphore.run('a', async () => 'after');
    controller.abort(new Error('job deadline'));
    await expect(cancelled).rejects.toThrow('job deadline');
    expect(semaphore.waiting()).toBe(1);
    busy.end();
    await running;
    expect(await after).toBe('after');
    expect(didRun).toBe(false);
    await expect(semaphore.run('a', async () => 1, AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('refuses a limit below one', () => {
    expect(() => new KeyedSemaphore(0)).toThrow(RangeError);
  });
});
