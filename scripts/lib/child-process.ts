import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** The stop signal (SIGTERM unless chosen), then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns a long-running service. Its output goes to `logFile` when given
 * (services that would flood the terminal), else it is inherited.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions & { logFile?: string; stopSignal?: NodeJS.Signals } = {},
): ManagedProcess {
  const { logFile, stopSignal = 'SIGTERM', ...spawnOptions } = options;
  const child = spawn(command, args, {
    stdio: logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    ...spawnOptions,
  });
  if (logFile) {
    const log = createWriteStream(logFile, { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  }
  return { name, child, stop: (graceMs = 5_000) => stopChild(child, stopSignal, graceMs) };
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Polls `probe` until it resolves true or `timeoutMs` passes. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
}

/**
 * A process of ours that an earlier run started and left running (that run was
 * killed): stopped like one we started, by pid (it is not our child, so its exit
 * is seen by polling).
 */
export function adoptProcess(name: string, pid: number, stopSignal: NodeJS.Signals = 'SIGTERM'): Pick<ManagedProcess, 'name' | 'stop'> {
  const isAlive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    name,
    async stop(graceMs = 5_000) {
      if (!isAlive()) return;
      process.kill(pid, stopSignal);
      const deadline = Date.now() + graceMs;
      while (isAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      if (isAlive()) process.kill(pid, 'SIGKILL');
    },
  };
}
