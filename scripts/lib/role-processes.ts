import { join } from 'node:path';
import { startProcess, type ManagedProcess } from './child-process.ts';
import { ROOT } from './local-services.ts';

export interface RoleProcess {
  /** `api`, `research-worker`, …: what the lines about it say. */
  name: string;
  /** The entry point under the checkout, e.g. `worker/main.ts`. */
  entry: string;
  args: string[];
  env?: Record<string, string>;
  /** Its readiness probe. */
  probeUrl: string;
}

/** A process that keeps dying right after its start waits longer each time, up to this, before the next. */
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that ran this long before dying is restarted at once. */
const STEADY_AFTER_MS = 30_000;

/**
 * Runs one process per role, as a supervisor does in production: a role
 * process that exits is started again with one line saying so, whatever the
 * others do. `stop()` stops them in the order given (the API first, so no
 * new work arrives while the workers drain), each with SIGTERM and time to drain.
 */
export function startRoleProcesses(
  roles: RoleProcess[],
  options: {
    env: NodeJS.ProcessEnv;
    log: (line: string) => void;
    /** Called with each new pid (`npm run dev` records them to stop what a killed run left behind). */
    onStart?: (role: RoleProcess, pid: number) => void;
    /** Where each role's output goes; inherited when omitted. */
    logFile?: (role: RoleProcess) => string;
    graceMs?: number;
  },
): { processes: () => ManagedProcess[]; stop(): Promise<void> } {
  const running = new Map<string, ManagedProcess>();
  let isStopping = false;

  function start(role: RoleProcess, failuresInARow: number): void {
    const startedAt = Date.now();
    const managed = startProcess(role.name, process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, role.entry), ...role.args], {
      env: { ...options.env, ...role.env },
      detached: true,
      ...(options.logFile ? { logFile: options.logFile(role) } : {}),
    });
    running.set(role.name, managed);
    options.onStart?.(role, managed.child.pid!);
    managed.child.on('exit', (code, signal) => {
      if (isStopping) return;
      const isSteady = Date.now() - startedAt >= STEADY_AFTER_MS;
      const failures = isSteady ? 0 : failuresInARow + 1;
      const delayMs = failures === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 500 * 2 ** (failures - 1));
      options.log(`${role.name} exited (${signal ?? `code ${code}`}); starting it again${delayMs ? ` in ${delayMs / 1000} s` : ''}.`);
      setTimeout(() => {
        if (!isStopping) start(role, failures);
      }, delayMs).unref();
    });
  }

  for (const role of roles) start(role, 0);
  return {
    processes: () => [...running.values()],
    async stop() {
      isStopping = true;
      for (const role of roles) await running.get(role.name)?.stop(options.graceMs ?? 30_000);
    },
  };
}
