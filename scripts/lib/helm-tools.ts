// The chart's tools, under .tools/ like the other tools of this checkout
// (docs/deploy.md#kubernetes): Helm compiled from the Go module proxy (these
// machines reach package registries, not Helm's release downloads), and
// kubernetes-validate, which bundles Kubernetes' JSON schemas, in a venv.
import { withDirectoryLock } from './directory-lock.ts';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './local-services.ts';

const run = promisify(execFile);

/** Pinned so that every machine lints and renders with the same Helm. */
export const HELM_VERSION = 'v3.22.0';
/**
 * What Helm's release build stamps in with -ldflags (its Makefile): its version,
 * and the Kubernetes version its lint checks deprecated APIs against, the
 * minor after its client-go's (v0.37 in v3.22.0's go.mod). Unstamped it says
 * 1.20 and lints against that.
 */
const HELM_LDFLAGS = [
  `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
  ...['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
    `-X helm.sh/helm/v3/${pkg}.k8sVersionMajor=1`,
    `-X helm.sh/helm/v3/${pkg}.k8sVersionMinor=37`,
  ]),
].join(' ');
/** Pinned: its release carries the schemas of the Kubernetes versions up to its own. */
const KUBERNETES_VALIDATE_VERSION = '1.37.0';

const HELM_DIR = join(ROOT, '.tools', `helm-${HELM_VERSION}`);
const VALIDATE_VENV = join(ROOT, '.tools', 'kubernetes-validate-venv');

/**
 * `HELM` if set, else `.tools/helm-<version>/helm`, compiled there when missing
 * (minutes on two cores; Go's module and build caches keep a second checkout's
 * compile short).
 */
export async function ensureHelm(log: (line: string) => void = () => {}): Promise<string> {
  if (process.env.HELM) return process.env.HELM;
  const helm = join(HELM_DIR, 'helm');
  if (existsSync(helm)) return helm;
  await withDirectoryLock(`${HELM_DIR}.lock`, async () => {
    if (existsSync(helm)) return;
    log(`Compiling Helm ${HELM_VERSION} into .tools/helm-${HELM_VERSION} from the Go module proxy (once per checkout)…`);
    const startedAt = Date.now();
    await run(findGo(), ['install', '-ldflags', HELM_LDFLAGS, `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
      cwd: ROOT,
      env: { ...process.env, GOBIN: HELM_DIR, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), CGO_ENABLED: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
    log(`Helm ${HELM_VERSION} compiled in ${Math.round((Date.now() - startedAt) / 1000)} s.`);
  });
  return helm;
}

/** `GO`, else `go` on PATH, else the official tarball's place (Helm v3.22 needs Go 1.26); `tool` names what is compiled, `override` its variable. */
export function findGo(tool = 'Helm', override = 'HELM'): string {
  if (process.env.GO) return process.env.GO;
  const candidates = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'go')), '/usr/local/go/bin/go'];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`Compiling ${tool} needs Go 1.26 or later (none on PATH or in /usr/local/go): install it, or set ${override} to a ${tool} binary`);
  return found;
}

/** The venv's `kubernetes-validate` command, installed from PyPI when missing. */
export async function ensureKubernetesValidate(log: (line: string) => void = () => {}): Promise<string> {
  const command = join(VALIDATE_VENV, 'bin', 'kubernetes-validate');
  const marker = join(VALIDATE_VENV, `.installed-${KUBERNETES_VALIDATE_VERSION}`);
  if (existsSync(marker)) return command;
  await withDirectoryLock(`${VALIDATE_VENV}.lock`, async () => {
    if (existsSync(marker)) return;
    log(`Installing kubernetes-validate ${KUBERNETES_VALIDATE_VERSION} into .tools/kubernetes-validate-venv…`);
    const python = join(VALIDATE_VENV, 'bin', 'python');
    if (!existsSync(python)) await run(process.env.PYTHON ?? 'python3', ['-m', 'venv', VALIDATE_VENV]);
    await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}`], {
      maxBuffer: 16 * 1024 * 1024,
    });
    await run('touch', [marker]);
  });
  return command;
}

// `node scripts/lib/helm-tools.ts`: installs both and prints where they are.
if (import.meta.main) {
  const log = (line: string) => process.stderr.write(`[helm-tools] ${line}\n`);
  console.log(await ensureHelm(log));
  console.log(await ensureKubernetesValidate(log));
}
