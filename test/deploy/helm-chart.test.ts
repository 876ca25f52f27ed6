import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { WORKER_ROLES } from '../../worker/role-names.ts';
import {
  KUBERNETES_VERSIONS, PRODUCTION_VALUES, TAGGED, ensureTools, envValue, lintChart, named, ofKind, podTemplates, readValues,
  renderChart, renderError, validateManifests, type Container, type Manifest, type Tools,
} from './helm-render.ts';

// The Helm chart (docs/deploy.md#kubernetes), rendered with the pinned Helm for
// the default and the production values, validated offline against
// Kubernetes' schemas, and read for what a cluster would only show too late.
const PRODUCTION = ['-f', PRODUCTION_VALUES];
const FULLNAME = 'enrich-prospect-enrichment';
// Variables that hold secrets, as .env.example names them.
const SECRET_NAME = /^(DATABASE_URL|SMTP_PASSWORD)$|_(KEY|SECRET|PASSWORD|TOKEN)$/;

let tools: Tools;
let byDefault: Manifest[];
let production: Manifest[];
const values = readValues(PRODUCTION_VALUES);

beforeAll(async () => {
  // The first run on a machine compiles Helm (minutes on two cores).
  tools = await ensureTools((line) => process.stderr.write(`[helm-chart] ${line}\n`));
  [byDefault, production] = await Promise.all([renderChart(tools, TAGGED), renderChart(tools, PRODUCTION)]);
}, 40 * 60_000);

const containerOf = (manifest: Manifest): Container => manifest.spec!.template!.spec.containers[0];
const workerDeployments = (manifests: Manifest[]) => ofKind(manifests, 'Deployment').filter((d) => d.metadata.labels?.['app.kubernetes.io/component'] !== 'api');
const roleOf = (deployment: Manifest) => deployment.metadata.labels!['app.kubernetes.io/component'];

describe('the chart lints and validates', () => {
  it('passes helm lint --strict with the default and the production values', async () => {
    for (const args of [TAGGED, PRODUCTION]) expect(await lintChart(tools, args)).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it.each(KUBERNETES_VERSIONS)('renders objects that Kubernetes %s schemas accept (strict: no unknown field); only KEDA kinds have no schema', async (version) => {
    for (const manifests of [byDefault, production]) {
      const result = await validateManifests(tools, manifests, version);
      expect(result.problems).toEqual([]);
      expect(result.exitCode).toBe(0);
      const keda = manifests.filter((m) => m.apiVersion.startsWith('keda.sh/'));
      expect(result.passed).toHaveLength(manifests.length - keda.length);
      expect(result.withoutSchema.sort()).toEqual(keda.map((m) => `${m.kind} ${m.apiVersion}`).sort());
    }
  });

  it('the validator rejects what the schemas do not allow (a replica count as text, an unknown probe field)', async () => {
    const api = structuredClone(named(production, 'Deployment', `${FULLNAME}-api`));
    api.spec!.replicas = '3' as unknown as number;
    const probe = structuredClone(named(production, 'Deployment', `${FULLNAME}-api`));
    (containerOf(probe).readinessProbe as unknown as Record<string, unknown>).periodSecond = 5;
    for (const broken of [api, probe]) expect((await validateManifests(tools, [broken], KUBERNETES_VERSIONS[0])).exitCode).not.toBe(0);
  });

  it('refuses values outside its schema: a misspelled role, an unknown KEDA queue type', async () => {
    expect(await renderError(tools, [...TAGGED, '--set', 'workers.reseach.replicas=2'])).toContain("additional properties 'reseach' not allowed");
    expect(await renderError(tools, [...TAGGED, '--set', 'keda.queueTypes=workflows'])).toContain('/keda/queueTypes');
  });
});

describe('the migrations Job', () => {
  it('runs before install and upgrade as a Helm hook with a constant name, deleted before the next run and on success', () => {
    const job = named(byDefault, 'Job', `${FULLNAME}-migrate`);
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    expect(containerOf(job).args).toEqual(['node', '--disable-warning=ExperimentalWarning', 'scripts/migrate.ts']);
  });

  it('takes nothing the chart creates (a pre-install hook runs before it exists): DATABASE_URL from the existing Secret only', () => {
    const job = named(production, 'Job', `${FULLNAME}-migrate`);
    const pod = job.spec!.template!.spec;
    expect(containerOf(job).env).toEqual([{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'prospect-enrichment', key: 'database-url' } } }]);
    expect(containerOf(job).envFrom).toBeUndefined();
    expect(pod.serviceAccountName).toBeUndefined();
    expect(pod.volumes?.every((volume) => !volume.secret)).toBe(true);
  });

  it('without Helm hooks is an ordinary Job named after the image, so a new image gets a new Job', async () => {
    const manifests = await renderChart(tools, [...PRODUCTION, '--set', 'migrations.useHelmHooks=false']);
    const job = ofKind(manifests, 'Job').find((each) => each.metadata.labels!['app.kubernetes.io/component'] === 'migrations')!;
    expect(job.metadata.name).toBe(`${FULLNAME}-migrate-2026-10-1`);
    expect(Object.keys(job.metadata.annotations ?? {}).filter((key) => key.startsWith('helm.sh/'))).toEqual([]);
  });
});

describe('the API', () => {
  it('listens on 0.0.0.0:PORT, probed on /livez (liveness, startup) and /readyz (readiness), behind a Service', () => {
    const api = named(production, 'Deployment', `${FULLNAME}-api`);
    const container = containerOf(api);
    expect(container.args).toEqual(['node', '--disable-warning=ExperimentalWarning', 'api/main.ts']);
    expect(envValue(container, 'HOST')).toBe('0.0.0.0');
    const port = container.ports!.find((each) => each.name === 'http')!;
    expect(String(port.containerPort)).toBe(envValue(container, 'PORT'));
    expect(container.livenessProbe!.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(container.startupProbe!.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(container.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'http' });
    const service = named(production, 'Service', `${FULLNAME}-api`);
    expect(service.spec!.selector).toEqual(api.spec!.selector!.matchLabels);
    expect(service.spec!.ports).toEqual([expect.objectContaining({ targetPort: 'http' })]);
  });

  it('leaves its replicas to the HorizontalPodAutoscaler when one is enabled', () => {
    expect(named(byDefault, 'Deployment', `${FULLNAME}-api`).spec!.replicas).toBe(2);
    expect(named(production, 'Deployment', `${FULLNAME}-api`).spec!.replicas).toBeUndefined();
    expect(named(production, 'HorizontalPodAutoscaler', `${FULLNAME}-api`).spec!.scaleTargetRef).toMatchObject({ name: `${FULLNAME}-api` });
  });

  it("every process runs under the image's entrypoint (tini as PID 1): the chart sets args, never command", () => {
    for (const { template } of podTemplates(production)) expect(template.spec.containers.map((container) => container.command)).toEqual([undefined]);
  });

  it('the entry points the chart runs exist', () => {
    for (const entry of ['api/main.ts', 'worker/main.ts', 'scripts/migrate.ts']) expect(existsSync(join(ROOT, entry)), entry).toBe(true);
  });
});

describe('the workers', () => {
  it('one Deployment per enabled role, each running its role with its own replicas, resources and slots', () => {
    expect(workerDeployments(byDefault).map(roleOf)).toEqual(['research', 'webhooks', 'housekeeping']);
    expect(workerDeployments(production).map(roleOf)).toEqual([...WORKER_ROLES]);
    for (const deployment of workerDeployments(production)) {
      const role = roleOf(deployment);
      const own = values.workers[role];
      const container = containerOf(deployment);
      expect(container.args).toEqual(['node', '--disable-warning=ExperimentalWarning', 'worker/main.ts', role]);
      expect(container.resources).toEqual(own.resources);
      if (role !== 'research') expect(deployment.spec!.replicas).toBe(own.replicas);
      expect(envValue(container, 'WORKER_MAX_CONCURRENT_ACTIVITIES')).toBe(own.slots?.activities?.toString());
    }
  });

  it('serve their probes on WORKER_METRICS_PORT bound to 0.0.0.0: /livez and /readyz', () => {
    for (const deployment of workerDeployments(production)) {
      const container = containerOf(deployment);
      expect(envValue(container, 'WORKER_METRICS_HOST')).toBe('0.0.0.0');
      expect(String(container.ports!.find((port) => port.name === 'ops')!.containerPort)).toBe(envValue(container, 'WORKER_METRICS_PORT'));
      expect(container.livenessProbe!.httpGet).toEqual({ path: '/livez', port: 'ops' });
      expect(container.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'ops' });
    }
  });

  it('the crm role needs a CRM app (HubSpot, Pipedrive or Salesforce), or the chart refuses it (the process would stop at start)', async () => {
    expect(await renderError(tools, [...TAGGED, '--set', 'workers.crm.enabled=true'])).toContain('workers.crm needs a CRM app');
    // An id without its secret is no app either.
    expect(await renderError(tools, [...TAGGED, '--set', 'workers.crm.enabled=true', '--set', 'config.SALESFORCE_CLIENT_ID=x'])).toContain('workers.crm needs a CRM app');
    // Pipedrive alone is one.
    const rendered = await renderChart(tools, [...TAGGED, '--set', 'workers.crm.enabled=true', '--set', 'config.PIPEDRIVE_CLIENT_ID=x', '--set', 'secrets.env.PIPEDRIVE_CLIENT_SECRET=pipedrive-client-secret']);
    expect(workerDeployments(rendered).some((deployment) => deployment.metadata.name === `${FULLNAME}-crm`)).toBe(true);
  });
});

describe('draining on SIGTERM', () => {
  it('every pod is given longer than readiness delay + grace + 5 s (the worker force time)', () => {
    const pods = podTemplates(production).filter(({ owner }) => owner.kind === 'Deployment');
    expect(pods.length).toBe(5);
    for (const { owner, template } of pods) {
      const container = template.spec.containers[0];
      const drainSeconds = (Number(envValue(container, 'SHUTDOWN_READINESS_DELAY_MS')) + Number(envValue(container, 'SHUTDOWN_GRACE_MS'))) / 1000 + 5;
      expect(template.spec.terminationGracePeriodSeconds, owner.metadata.name).toBeGreaterThan(drainSeconds);
    }
    // The crm role's own grace (60 s) over the shared one.
    expect(envValue(containerOf(named(production, 'Deployment', `${FULLNAME}-crm-2026-10-1`)), 'SHUTDOWN_GRACE_MS')).toBe('60000');
  });

  it('refuses a grace period that would cut the drain short', async () => {
    expect(await renderError(tools, [...TAGGED, '--set', 'api.terminationGracePeriodSeconds=30'])).toContain('must exceed the drain (readiness delay 5000 ms + grace 20000 ms + 5 s = 30 s)');
    expect(await renderError(tools, [...TAGGED, '--set', 'workers.research.terminationGracePeriodSeconds=10'])).toContain('workers.research.terminationGracePeriodSeconds=10');
  });
});

describe('configuration', () => {
  it('plain settings come from one ConfigMap whose checksum rolls every pod when it changes', async () => {
    const checksums = (manifests: Manifest[]) => ofKind(manifests, 'Deployment').map((d) => d.spec!.template!.metadata.annotations!['checksum/config']);
    const before = checksums(production);
    const after = checksums(await renderChart(tools, [...PRODUCTION, '--set', 'config.LOG_LEVEL=debug']));
    expect(new Set(before).size).toBe(1);
    expect(new Set(after).size).toBe(1);
    expect(after[0]).not.toBe(before[0]);
    for (const deployment of ofKind(production, 'Deployment')) expect(containerOf(deployment).envFrom).toEqual([{ configMapRef: { name: FULLNAME } }]);
  });

  it('secrets only by reference: no Secret object, no secret-named variable with a value, none in the ConfigMap', () => {
    for (const manifests of [byDefault, production]) {
      expect(ofKind(manifests, 'Secret')).toEqual([]);
      expect(Object.keys(named(manifests, 'ConfigMap', FULLNAME).data!).filter((name) => SECRET_NAME.test(name))).toEqual([]);
      for (const { template } of podTemplates(manifests)) {
        for (const variable of template.spec.containers.flatMap((container) => container.env ?? [])) {
          if (SECRET_NAME.test(variable.name)) expect(variable, variable.name).toEqual({ name: variable.name, valueFrom: { secretKeyRef: expect.any(Object) } });
        }
      }
    }
  });

  it('refuses a secret put among the plain settings, without echoing it', async () => {
    const error = await renderError(tools, [...TAGGED, '--set', 'config.OPENAI_API_KEY=sk-canary-7f3a']);
    expect(error).toContain('config.OPENAI_API_KEY holds a secret');
    expect(error).not.toContain('sk-canary-7f3a');
  });

  it('the production example references every secret variable of .env.example', () => {
    const secrets = readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n')
      .flatMap((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? [])
      .filter((name) => SECRET_NAME.test(name) && !name.startsWith('TEMPORAL_'));
    expect(secrets.length).toBeGreaterThan(10);
    expect(secrets.filter((name) => !(name in values.secrets.env))).toEqual([]);
  });
});

/** Whether a selector's labels all appear among a pod's. */
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);
const podLabels = (deployment: Manifest) => deployment.spec!.template!.metadata.labels;

describe('scheduling', () => {
  interface Spread { maxSkew: number; topologyKey: string; whenUnsatisfiable: string; labelSelector: { matchLabels: Record<string, string> }; matchLabelKeys: string[] }
  const spreadOf = (manifest: Manifest) => (manifest.spec!.template!.spec as { topologySpreadConstraints?: Spread[] }).topologySpreadConstraints;

  it("spreads each Deployment's pods over zones and nodes by default, never leaving one pending for it", () => {
    for (const manifests of [byDefault, production]) {
      for (const deployment of ofKind(manifests, 'Deployment')) {
        const constraints = spreadOf(deployment)!;
        expect(constraints.map((each) => each.topologyKey), deployment.metadata.name).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
        for (const constraint of constraints) {
          expect(constraint).toMatchObject({ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway', matchLabelKeys: ['pod-template-hash'] });
          // Its own pods and no other Deployment's (each build and role apart).
          expect(constraint.labelSelector.matchLabels).toEqual(deployment.spec!.selector!.matchLabels);
        }
      }
      expect(spreadOf(ofKind(manifests, 'Job')[0]!)).toBeUndefined();
    }
  });

  it('takes constraints of your own instead, or none', async () => {
    const own = await renderChart(tools, [...TAGGED, '--set', 'workers.research.scheduling.topologySpreadConstraints[0].maxSkew=2', '--set', 'workers.research.scheduling.topologySpreadConstraints[0].topologyKey=kubernetes.io/hostname', '--set', 'workers.research.scheduling.topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule']);
    expect(spreadOf(named(own, 'Deployment', `${FULLNAME}-research`))).toEqual([{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' }]);
    expect(spreadOf(named(own, 'Deployment', `${FULLNAME}-webhooks`))).toHaveLength(2);
    const none = await renderChart(tools, [...TAGGED, '--set', 'scheduling.defaultTopologySpread=false']);
    for (const deployment of ofKind(none, 'Deployment')) expect(spreadOf(deployment)).toBeUndefined();
  });
});

describe('the NetworkPolicies and the ServiceMonitor', () => {
  let enabled: Manifest[];
  beforeAll(async () => {
    enabled = await renderChart(tools, [...PRODUCTION, '--set', 'networkPolicy.enabled=true', '--set', 'serviceMonitor.enabled=true']);
  });

  it('are off by default', () => {
    for (const manifests of [byDefault, production]) {
      expect(ofKind(manifests, 'NetworkPolicy')).toEqual([]);
      expect(ofKind(manifests, 'ServiceMonitor')).toEqual([]);
      expect(ofKind(manifests, 'Service').map((service) => service.metadata.name)).toEqual([`${FULLNAME}-api`]);
    }
  });

  it.each(KUBERNETES_VERSIONS)('on, validate against Kubernetes %s; only the ServiceMonitor (a CRD) and KEDA have no schema', async (version) => {
    const result = await validateManifests(tools, enabled, version);
    expect(result.problems).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(result.withoutSchema.filter((kind) => !kind.includes('keda.sh/'))).toEqual(['ServiceMonitor monitoring.coreos.com/v1']);
  });

  it("let the API's pods take connections on their port only and the workers' on their probes' and metrics port only", async () => {
    const api = named(enabled, 'NetworkPolicy', `${FULLNAME}-api`);
    const workerPolicy = named(enabled, 'NetworkPolicy', `${FULLNAME}-worker`);
    type Policy = { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress: { ports: { port: string }[]; from?: unknown[] }[] };
    const spec = (manifest: Manifest) => manifest.spec as unknown as Policy;
    const apiDeployment = named(enabled, 'Deployment', `${FULLNAME}-api`);
    const workers = workerDeployments(enabled);
    expect(workers.length).toBe(4);
    expect(selects(spec(api).podSelector.matchLabels, podLabels(apiDeployment))).toBe(true);
    expect(workers.filter((worker) => selects(spec(api).podSelector.matchLabels, podLabels(worker)))).toEqual([]);
    for (const worker of workers) expect(selects(spec(workerPolicy).podSelector.matchLabels, podLabels(worker)), worker.metadata.name).toBe(true);
    expect(selects(spec(workerPolicy).podSelector.matchLabels, podLabels(apiDeployment))).toBe(false);
    // The ports are the containers' own named ports.
    expect(spec(api).ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 'http' }] }]);
    expect(containerOf(apiDeployment).ports!.map((port) => port.name)).toContain('http');
    expect(spec(workerPolicy).ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 'ops' }] }]);
    for (const worker of workers) expect(containerOf(worker).ports!.map((port) => port.name)).toContain('ops');
    // Outbound stays open unless rules are given; peers pass through.
    expect(spec(api).policyTypes).toEqual(['Ingress']);
    const restricted = await renderChart(tools, [...TAGGED, '--set', 'networkPolicy.enabled=true', '--set', 'networkPolicy.apiFrom[0].namespaceSelector.matchLabels.name=ingress-nginx', '--set', 'networkPolicy.egress[0].ports[0].port=5432']);
    const restrictedApi = named(restricted, 'NetworkPolicy', `${FULLNAME}-api`).spec as unknown as Policy & { egress: unknown };
    expect(restrictedApi.ingress[0]!.from).toEqual([{ namespaceSelector: { matchLabels: { name: 'ingress-nginx' } } }]);
    expect(restrictedApi.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(restrictedApi.egress).toEqual([{ ports: [{ port: 5432 }] }]);
  });

  it("scrape every worker pod's /metrics through a headless Service, and the API's with its bearer token", async () => {
    const service = named(enabled, 'Service', `${FULLNAME}-worker-metrics`);
    const apiService = named(enabled, 'Service', `${FULLNAME}-api`);
    const serviceSpec = service.spec as unknown as { clusterIP: string; selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
    expect(serviceSpec.clusterIP).toBe('None');
    for (const worker of workerDeployments(enabled)) expect(selects(serviceSpec.selector, podLabels(worker)), worker.metadata.name).toBe(true);
    expect(selects(serviceSpec.selector, podLabels(named(enabled, 'Deployment', `${FULLNAME}-api`)))).toBe(false);
    expect(serviceSpec.ports).toEqual([expect.objectContaining({ name: 'ops', targetPort: 'ops' })]);

    const monitor = named(enabled, 'ServiceMonitor', FULLNAME);
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    type Monitor = {
      selector: { matchExpressions: { key: string; operator: string; values: string[] }[] };
      namespaceSelector: { matchNames: string[] };
      endpoints: { port: string; path: string; interval: string; authorization?: unknown }[];
    };
    const spec = monitor.spec as unknown as Monitor;
    // Its selector takes the two Services, by their labels.
    const matches = (labels: Record<string, string>) => spec.selector.matchExpressions.every((expression) => expression.operator === 'In' && expression.values.includes(labels[expression.key]!));
    expect(ofKind(enabled, 'Service').filter((each) => matches(each.metadata.labels!)).map((each) => each.metadata.name).sort()).toEqual([`${FULLNAME}-api`, `${FULLNAME}-worker-metrics`]);
    expect(spec.namespaceSelector).toEqual({ matchNames: ['enrich'] });
    // Each endpoint names a port of those Services.
    const portNames = [serviceSpec.ports, (apiService.spec as { ports: { name: string }[] }).ports].flat().map((port) => port.name);
    expect(spec.endpoints.map((endpoint) => endpoint.port).every((port) => portNames.includes(port))).toBe(true);
    expect(spec.endpoints).toEqual([
      { port: 'ops', path: '/metrics', interval: '30s' },
      { port: 'http', path: '/metrics', interval: '30s', authorization: { type: 'Bearer', credentials: { name: 'prospect-enrichment', key: values.secrets.env.METRICS_BEARER_TOKEN } } },
    ]);
    // The default values name the token's Secret (production refuses to start without it); a release
    // that removes it scrapes the API without one. Without the API, the workers alone.
    const defaults = named(await renderChart(tools, [...TAGGED, '--set', 'serviceMonitor.enabled=true']), 'ServiceMonitor', FULLNAME).spec as unknown as Monitor;
    expect(defaults.endpoints[1]).toEqual(expect.objectContaining({ authorization: expect.objectContaining({ type: 'Bearer' }) }));
    const open = named(await renderChart(tools, [...TAGGED, '--set', 'serviceMonitor.enabled=true', '--set', 'secrets.env.METRICS_BEARER_TOKEN=null']), 'ServiceMonitor', FULLNAME).spec as unknown as Monitor;
    expect(open.endpoints[1]).toEqual({ port: 'http', path: '/metrics', interval: '30s' });
    const workersOnly = named(await renderChart(tools, [...TAGGED, '--set', 'serviceMonitor.enabled=true', '--set', 'serviceMonitor.api.enabled=false']), 'ServiceMonitor', FULLNAME).spec as unknown as Monitor;
    expect(workersOnly.endpoints.map((endpoint) => endpoint.port)).toEqual(['ops']);
  });
});
