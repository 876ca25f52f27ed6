// Builds the Dockerfile's image with Debian's buildah, on machines with no
// Docker engine and no container registry to pull the base from, such as CI
// (docs/deploy.md#building-without-docker). Users with Docker build the same
// Dockerfile with `docker build`, on the standard node:24-bookworm-slim.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './local-services.ts';

export const IMAGE_REPOSITORY = 'localhost/prospect-enrichment';
/** The Dockerfile's base, under the name buildah resolves `node:24-bookworm-slim` to. */
export const BASE_IMAGE = 'docker.io/library/node:24-bookworm-slim';
const NODE_MAJOR = 24;
const NPM_MAJOR = 11;
const DEBIAN_SUITE = 'bookworm';
const DEBIAN_SOURCES = [
  `deb http://deb.debian.org/debian ${DEBIAN_SUITE} main`,
  `deb http://deb.debian.org/debian ${DEBIAN_SUITE}-updates main`,
  `deb http://deb.debian.org/debian-security ${DEBIAN_SUITE}-security main`,
];
/** Debian's bundle: where HTTPS goes through a proxy with its own CA, the proxy's CA is in it. */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/** Only root builds here: buildah without root needs subordinate ids, and apt-get needs root. */
export const canBuildImages = process.platform === 'linux' && process.getuid?.() === 0;

type Log = (line: string) => void;

export interface BuildOptions {
  tag: string;
  log: Log;
  /** Where buildah's output goes: a file, or this process's stderr. */
  outputFile?: string;
}

/** Builds the Dockerfile into `IMAGE_REPOSITORY:tag`, making what is missing first; returns the image's name. */
export async function buildImage(options: BuildOptions): Promise<string> {
  const { log } = options;
  ensureBuildTools(log);
  await ensureBaseImage(options);
  const image = `${IMAGE_REPOSITORY}:${options.tag}`;
  const started = Date.now();
  log(`Building ${image} from the Dockerfile…`);
  // --layers keeps each step's result, so a second build redoes only the steps after the first change
  // (npm ci reruns only when package.json or the lock file changed); npm's cache mount lives in /var/tmp.
  await run('buildah', [
    'build', '--isolation', 'chroot', '--layers', '--pull=never',
    // A RUN step gets 1,024 open files by default, which npm ci's parallel reads of its cache
    // outgrow (EMFILE) with this many packages; nproc is buildah's own default, restated since
    // --ulimit replaces the list.
    '--ulimit', 'nproc=32768:32768', '--ulimit', 'nofile=16384:16384',
    ...(existsSync(CA_BUNDLE) ? ['--secret', `id=ca,src=${CA_BUNDLE}`] : []),
    // As build arguments for the Dockerfile's LABEL step, and as labels set on the result too: buildah's
    // layer cache keeps a LABEL step whose build argument changed, so the step alone would keep the last commit.
    ...Object.entries(provenance(options.tag)).flatMap(([name, value]) => ['--build-arg', `${name}=${value}`, '--label', `org.opencontainers.image.${name.toLowerCase()}=${value}`]),
    '--tag', image, '--file', join(ROOT, 'Dockerfile'), ROOT,
  ], options.outputFile);
  log(`Built ${image} in ${seconds(started)}.`);
  return image;
}

/**
 * The Dockerfile's build arguments for its OCI labels: the tag as the
 * version, this checkout's commit as the revision (with `-dirty` when it has
 * changes not committed), and its origin remote as the source when it has one.
 */
export function provenance(tag: string): { VERSION: string; REVISION: string; SOURCE?: string } {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const commit = git('rev-parse', 'HEAD');
  const isDirty = commit !== '' && git('status', '--porcelain', '--untracked-files=no') !== '';
  // Never a credential written into the remote's address (https://user:token@host/…).
  const source = git('remote', 'get-url', 'origin').replace(/^([a-z+]+:\/\/)[^@/]+@/i, '$1');
  return { VERSION: tag, REVISION: commit ? `${commit}${isDirty ? '-dirty' : ''}` : 'unknown', ...(source ? { SOURCE: source } : {}) };
}

/** buildah and mmdebstrap from Debian's packages, installed when missing (CI starts from a fresh machine). */
export function ensureBuildTools(log: Log): void {
  const missing = ['buildah', 'mmdebstrap'].filter((command) => !isOnPath(command));
  if (missing.length === 0) return;
  if (!canBuildImages) throw new Error(`${missing.join(' and ')} missing: install them (apt-get install ${missing.join(' ')}) as root`);
  log(`Installing ${missing.join(' and ')} (apt-get)…`);
  // Another apt-get on the machine (another test installing its tools) holds the locks a while at most: wait for it.
  const apt = ['-q', '-o', 'DPkg::Lock::Timeout=600'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing]]) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        execFileSync('apt-get', [...apt, ...args], { stdio: ['ignore', 'ignore', 'inherit'], env });
        break;
      } catch (error) {
        if (attempt === 5) throw error;
        execFileSync('sleep', [String(5 * attempt)]);
      }
    }
  }
}

export function imageExists(name: string): boolean {
  try {
    execFileSync('buildah', ['inspect', '--type', 'image', '--format', '{{.FromImageID}}', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The base, made here when no copy is stored: Debian's minimal root file
 * system (mmdebstrap), Node 24 and npm from the npm registry in /usr/local and
 * the `node` user (uid 1000), as the official image has them. It is kept in
 * buildah's storage, so it is made once per machine.
 */
async function ensureBaseImage(options: BuildOptions): Promise<void> {
  if (imageExists(BASE_IMAGE)) return;
  const { log } = options;
  const started = Date.now();
  log(`No ${BASE_IMAGE} stored (and no registry to pull it from): making it from Debian ${DEBIAN_SUITE} and the npm registry…`);
  const work = mkdtempSync('/var/tmp/node-base-');
  try {
    const arch = { x64: 'x64', arm64: 'arm64' }[process.arch as string];
    if (!arch) throw new Error(`no Node package for ${process.arch}`);
    const packed = JSON.parse(execFileSync('npm', ['pack', `node-linux-${arch}@${NODE_MAJOR}`, `npm@${NPM_MAJOR}`, '--json', '--pack-destination', work], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as { name: string; version: string; filename: string }[];
    const [node, npm] = packed;
    if (!node || !npm) throw new Error('npm pack gave no Node or npm package');
    const rootfs = join(work, 'rootfs.tar');
    await run('mmdebstrap', [
      '--variant=minbase',
      // As Debian's slim images: no manuals, documentation (but the licences) or translations.
      ...['/usr/share/man/*', '/usr/share/doc/*', '/usr/share/info/*', '/usr/share/locale/*'].map((path) => `--dpkgopt=path-exclude=${path}`),
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      `--customize-hook=tar -xzf '${join(work, node.filename)}' -C "$1/usr/local" --strip-components=1 package/bin package/include package/share`,
      `--customize-hook=mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf '${join(work, npm.filename)}' -C "$1/usr/local/lib/node_modules/npm" --strip-components=1`,
      '--customize-hook=ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
      '--customize-hook=chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node',
      DEBIAN_SUITE, rootfs, ...DEBIAN_SOURCES,
    ], options.outputFile);
    const container = execFileSync('buildah', ['from', 'scratch'], { encoding: 'utf8' }).trim();
    try {
      execFileSync('buildah', ['add', container, rootfs, '/'], { stdio: 'ignore' });
      execFileSync('buildah', [
        'config',
        '--env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--env', `NODE_VERSION=${node.version}`,
        '--cmd', 'node',
        '--label', `org.opencontainers.image.description=Debian ${DEBIAN_SUITE} with Node ${node.version} and npm ${npm.version} from the npm registry, made locally by scripts/lib/image.ts in place of ${BASE_IMAGE}`,
        container,
      ]);
      execFileSync('buildah', ['commit', '--quiet', container, BASE_IMAGE], { stdio: 'ignore' });
    } finally {
      execFileSync('buildah', ['rm', container], { stdio: 'ignore' });
    }
    log(`Made ${BASE_IMAGE} (Node ${node.version}, npm ${npm.version}) in ${seconds(started)}.`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function run(command: string, args: string[], outputFile?: string): Promise<void> {
  const output = outputFile ? createWriteStream(outputFile, { flags: 'a' }) : null;
  if (output) await once(output, 'open');
  const child = spawn(command, args, { stdio: ['ignore', output ?? 'inherit', output ?? 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (output) await new Promise((resolve) => output.end(resolve));
  if (code === 0) return;
  const tail = outputFile ? `; its last lines:\n${readFileSync(outputFile, 'utf8').split('\n').slice(-40).join('\n')}` : '';
  throw new Error(`${command} failed (exit ${code})${tail}`);
}

function isOnPath(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, command)));
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;
