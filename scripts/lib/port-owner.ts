// Whose service answers on a port: `npm run dev` reuses a service only when it
// is this checkout's own (its data directory), and stops otherwise, naming the
// port and the variable that moves it.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export class PortInUseError extends Error {
  readonly port: number;
  readonly variable: string;
  constructor(port: number, variable: string, what: string) {
    super(`Port ${port} is in use by something other than this checkout's ${what}. Stop it, or move ours: ${variable}=<free port> npm run dev (or put ${variable} in .env).`);
    this.name = 'PortInUseError';
    this.port = port;
    this.variable = variable;
  }
}

/** True when nothing can bind 127.0.0.1:port because something listens there. */
export async function isPortInUse(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(true) : reject(error)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/** Throws PortInUseError unless the port is free. */
export async function requireFreePort(port: number, variable: string, what: string): Promise<void> {
  if (await isPortInUse(port)) throw new PortInUseError(port, variable, what);
}

/**
 * Pid files under `<dataDir>/run/`: a process we started, with the text its
 * command line must contain to still be ours (a pid alone may be reused by
 * another program after a reboot).
 */
export function recordOwnProcess(dataDir: string, name: string, pid: number, marker: string): void {
  mkdirSync(join(dataDir, 'run'), { recursive: true });
  writeFileSync(join(dataDir, 'run', `${name}.json`), JSON.stringify({ pid, marker }));
}

export function forgetOwnProcess(dataDir: string, name: string): void {
  rmSync(join(dataDir, 'run', `${name}.json`), { force: true });
}

/** The pid of our still-running process `name`, or null. */
export function ownProcess(dataDir: string, name: string): number | null {
  const file = join(dataDir, 'run', `${name}.json`);
  if (!existsSync(file)) return null;
  try {
    const { pid, marker } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; marker: string };
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return commandLine.includes(marker) ? pid : null;
  } catch {
    return null;
  }
}
