import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** What the image says about how its processes run (its OCI config). */
export interface ImageConfig {
  User: string;
  Entrypoint: string[];
  Cmd: string[];
  WorkingDir: string;
  Env: string[];
  ExposedPorts?: Record<string, object>;
  Labels?: Record<string, string>;
}

export function imageConfig(image: string): ImageConfig {
  const inspected = JSON.parse(execFileSync('buildah', ['inspect', '--type', 'image', image], { encoding: 'utf8' })) as { OCIv1: { config: ImageConfig } };
  return inspected.OCIv1.config;
}

export interface ImageProcess {
  /** What it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with its exit code. */
  exited: Promise<number | null>;
  /** Sends a signal to the image's entrypoint, where a container runtime sends it (to PID 1). */
  signal(signal: NodeJS.Signals): Promise<void>;
  /** SIGKILLs everything it started. */
  kill(): Promise<void>;
}

/**
 * A working container of the image: `buildah run` starts processes in it as a
 * container runtime would, through the image's entrypoint with its user,
 * working directory and environment, on the host's network (chroot isolation:
 * the host's PID namespace too, so the entrypoint is not PID 1 here).
 */
export function imageContainer(image: string) {
  const config = imageConfig(image);
  const name = execFileSync('buildah', ['from', '--pull=never', image], { encoding: 'utf8' }).trim();

  function start(command: string[] | null, env: Record<string, string>): ImageProcess {
    const envArgs = Object.entries({ ...env, TINI_SUBREAPER: '1' }).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
    // tini reaps orphans as a subreaper where it is not PID 1 (TINI_SUBREAPER), which also quiets its warning.
    const child = spawn('buildah', ['run', '--isolation', 'chroot', '--network', 'host', ...envArgs, name, '--', ...config.Entrypoint, ...(command ?? config.Cmd)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit').then(([code]) => code as number | null);
    return {
      output: () => output,
      exited,
      async signal(signal) {
        const entrypoint = await findDescendant(child, basename(config.Entrypoint[0]!));
        process.kill(entrypoint, signal);
      },
      async kill() {
        if (child.exitCode !== null || child.signalCode !== null) return;
        // buildah does not pass a kill on to the command: its processes are killed one by one.
        for (const pid of descendants(child.pid!).reverse()) killQuietly(pid);
        killQuietly(child.pid!);
        await exited;
      },
    };
  }

  return {
    name,
    config,
    start,
    /** Runs a command to its end: its exit code and output. */
    async run(command: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
      const started = start(command, env);
      const code = await started.exited;
      return { code, output: started.output() };
    },
    remove() {
      execFileSync('buildah', ['rm', name], { stdio: 'ignore' });
    },
  };
}

export type ImageContainer = ReturnType<typeof imageContainer>;

function descendants(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found; // it has exited
  }
  for (const task of tasks) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of children.split(' ').filter(Boolean).map(Number)) found.push(child, ...descendants(child));
  }
  return found;
}

async function findDescendant(child: ChildProcess, command: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    for (const pid of descendants(child.pid!)) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === command) return pid;
      } catch {
        // gone meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${command} process under buildah run (pid ${child.pid})`);
}

function killQuietly(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
