import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** The stop signal (SIGTERM unless chosen), then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns a long-running service. Its output goes to `logFile` when given
 * (services that would flood the terminal), else it is inherited. It ends with
 * its starter: on Linux the kernel sends it the stop signal when the starter
 * dies, even by SIGKILL (see endsWithParent).
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions & { logFile?: string; stopSignal?: NodeJS.Signals } = {},
): ManagedProcess {
  const { logFile, stopSignal = 'SIGTERM', ...spawnOptions } = options;
  const child = spawn(...endsWithParent(command, args, stopSignal), {
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

/**
 * util-linux's `setpriv --pdeathsig` sets the kernel's parent-death signal
 * (prctl PR_SET_PDEATHSIG) and then execs the command in its place (same pid):
 * when the process that spawned it dies, however it dies, the kernel sends it
 * `signal`. Nothing to poll, and it works for the binaries we do not write
 * (PostgreSQL, the Temporal CLI) as for our own. Node spawns from its main
 * thread, whose end is the process's end. Where setpriv is missing (macOS), the
 * command runs as it is, and `npm run dev` stops what a killed run left at its next start.
 */
function endsWithParent(command: string, args: string[], signal: NodeJS.Signals): [string, string[]] {
  return SETPRIV ? [SETPRIV, ['--pdeathsig', signal.replace(/^SIG/, ''), '--', command, ...args]] : [command, args];
}

const SETPRIV = process.platform === 'linux' ? findOnPath('setpriv') : null;

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return existsSync(`/usr/bin/${name}`) ? `/usr/bin/${name}` : null;
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
  const isAlive = () => isRunning(pid);
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

/**
 * True while `pid` runs. An exited process that is not our child stays a zombie
 * until init reaps it (seconds, in some containers), and signal 0 still reaches
 * a zombie: its state in /proc says it has ended. Without /proc, signal 0 is all there is.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (command) state …": the command may hold spaces and parentheses, the state follows the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return !existsSync('/proc/self/stat');
  }
}
