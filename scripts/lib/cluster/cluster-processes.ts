import { join } from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from '../child-process.ts';
import { freePort } from '../free-port.ts';
import { ROOT } from '../local-services.ts';

/** One process of the cluster: an API or a worker of one role, stopped and started again as a rollout or a crash would. */
export interface ClusterProcess {
  readonly name: string;
  readonly url: string;
  start(): Promise<void>;
  /** SIGTERM waits for the drain (readiness false, work finished); SIGKILL is a crash. */
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<{ exitCode: number | null; signal: string | null; ms: number }>;
}

export interface ClusterProcessSpec {
  name: string;
  entry: 'api/main.ts' | 'worker/main.ts';
  args: string[];
}

/** Longer than any drain: the grace time, the readiness delay and the worker's force time. */
const STOP_DEADLINE_MS = 60_000;

export async function clusterProcess(spec: ClusterProcessSpec, env: NodeJS.ProcessEnv, logDir: string): Promise<ClusterProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const portEnv = spec.entry === 'api/main.ts' ? { PORT: String(port) } : { WORKER_METRICS_PORT: String(port) };
  let current: ManagedProcess | null = null;
  return {
    name: spec.name,
    url,
    async start() {
      current = startProcess(spec.name, process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, spec.entry), ...spec.args], {
        env: { ...env, ...portEnv },
        logFile: join(logDir, `${spec.name}.log`),
      });
      const child = current.child;
      await waitFor(`${spec.name} /readyz`, async () => {
        if (child.exitCode !== null) throw new Error(`${spec.name} exited with ${child.exitCode}`);
        return (await fetch(`${url}/readyz`)).ok;
      }, 120_000);
    },
    async stop(signal) {
      const child = current?.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return { exitCode: child?.exitCode ?? null, signal: child?.signalCode ?? null, ms: 0 };
      const started = Date.now();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
      await exited;
      clearTimeout(timer);
      return { exitCode: child.exitCode, signal: child.signalCode, ms: Date.now() - started };
    },
  };
}
