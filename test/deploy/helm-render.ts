// Renders and validates the Helm chart with the pinned Helm and kubernetes-validate
// (scripts/lib/helm-tools.ts), for test/deploy/helm-chart.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ensureHelm, ensureKubernetesValidate } from '../../scripts/lib/helm-tools.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';

const run = promisify(execFile);

export const CHART = join(ROOT, 'deploy', 'helm', 'prospect-enrichment');
export const PRODUCTION_VALUES = join(CHART, 'values-production.yaml');
/** The default values with the one setting the chart requires, the image's tag. */
export const TAGGED = ['--set', 'image.tag=2026.11.0'];
/** The oldest Kubernetes the chart claims (Chart.yaml kubeVersion) and the newest kubernetes-validate bundles. */
export const KUBERNETES_VERSIONS = ['1.29.0', '1.37.0'];
/** What Helm renders for; the chart uses no Capabilities, so one version serves both checks. */
const RENDER_KUBE_VERSION = '1.33.0';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: unknown };
}
export interface Probe {
  httpGet: { path: string; port: string | number };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  args: string[];
  ports?: { name: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: unknown;
  volumeMounts?: { name: string; mountPath: string }[];
}
export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    containers: Container[];
    terminationGracePeriodSeconds?: number;
    serviceAccountName?: string;
    volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
  };
}
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown> & { replicas?: number; selector?: { matchLabels: Record<string, string> }; template?: PodTemplate };
  data?: Record<string, string>;
}

export interface Tools {
  helm: string;
  validate: string;
}

export async function ensureTools(log: (line: string) => void): Promise<Tools> {
  return { helm: await ensureHelm(log), validate: await ensureKubernetesValidate(log) };
}

/** `helm template` of the chart under release name `enrich`; throws with Helm's message when the chart refuses. */
export async function renderChart(tools: Tools, args: string[] = []): Promise<Manifest[]> {
  const { stdout } = await run(tools.helm, ['template', 'enrich', CHART, '--namespace', 'enrich', '--kube-version', RENDER_KUBE_VERSION, ...args], {
    maxBuffer: 32 * 1024 * 1024,
  });
  return parseAllDocuments(stdout)
    .map((document) => document.toJSON() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/** Helm's error when the chart refuses these values. */
export async function renderError(tools: Tools, args: string[]): Promise<string> {
  try {
    await renderChart(tools, args);
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  throw new Error(`the chart rendered with ${args.join(' ')}`);
}

export async function lintChart(tools: Tools, args: string[] = []): Promise<string> {
  const { stdout } = await run(tools.helm, ['lint', '--strict', CHART, '--kube-version', RENDER_KUBE_VERSION, ...args]);
  return stdout;
}

export interface Validation {
  exitCode: number;
  passed: string[];
  /** Lines that are neither a pass nor the warning of a kind without a schema. */
  problems: string[];
  withoutSchema: string[];
}

/** kubernetes-validate --strict: Kubernetes' own JSON schemas, offline, rejecting unknown fields. */
export async function validateManifests(tools: Tools, manifests: Manifest[], kubernetesVersion: string): Promise<Validation> {
  const dir = mkdtempSync(join(tmpdir(), 'pe-helm-'));
  const file = join(dir, 'rendered.yaml');
  writeFileSync(file, manifests.map((manifest) => stringify(manifest)).join('---\n'));
  let output: string;
  let exitCode = 0;
  try {
    output = (await run(tools.validate, ['--strict', '-k', kubernetesVersion, file])).stdout;
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number };
    output = failure.stdout + failure.stderr;
    exitCode = failure.code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const lines = output.split('\n').filter(Boolean);
  const passed = lines.flatMap((line) => /passed for resource (\S+)/.exec(line)?.[1] ?? []);
  const withoutSchema = lines.flatMap((line) => /Couldn't find schema for kind (\S+) with api version (\S+)/.exec(line)?.slice(1, 3).join(' ') ?? []);
  const problems = lines.filter((line) => !/passed for resource|Couldn't find schema/.test(line));
  return { exitCode, passed, problems, withoutSchema };
}

export function readValues(file: string): Record<string, any> {
  return parse(readFileSync(file, 'utf8'));
}

export const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((manifest) => manifest.kind === kind);

export function named(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
}

/** Every pod template of the output: Deployments' and Jobs'. */
export function podTemplates(manifests: Manifest[]): { owner: Manifest; template: PodTemplate }[] {
  return manifests.flatMap((owner) => (owner.spec?.template ? [{ owner, template: owner.spec.template }] : []));
}

export function envOf(container: Container, name: string): EnvVar | undefined {
  return container.env?.find((variable) => variable.name === name);
}

export function envValue(container: Container, name: string): string | undefined {
  return envOf(container, name)?.value;
}
