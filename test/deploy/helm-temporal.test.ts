import { beforeAll, describe, expect, it } from 'vitest';
import {
  PRODUCTION_VALUES, TAGGED, ensureTools, envOf, envValue, named, ofKind, renderChart, renderError, type Container, type Manifest, type Tools,
} from './helm-render.ts';

// The chart's side of Temporal (docs/deploy.md#kubernetes): the connection by
// @temporalio/envconfig's variables, the Worker Versioning build id, and the
// KEDA ScaledObject, which no schema bundled offline covers, so it is checked
// here field by field against what KEDA's temporal scaler reads.
const PRODUCTION = ['-f', PRODUCTION_VALUES];
const FULLNAME = 'enrich-prospect-enrichment';

let tools: Tools;
let byDefault: Manifest[];
let production: Manifest[];

beforeAll(async () => {
  // The first run on a machine compiles Helm (minutes on two cores).
  tools = await ensureTools((line) => process.stderr.write(`[helm-temporal] ${line}\n`));
  [byDefault, production] = await Promise.all([renderChart(tools, TAGGED), renderChart(tools, PRODUCTION)]);
}, 40 * 60_000);

const containerOf = (manifest: Manifest): Container => manifest.spec!.template!.spec.containers[0];
const processes = (manifests: Manifest[]) => ofKind(manifests, 'Deployment');
const workers = (manifests: Manifest[]) => processes(manifests).filter((d) => d.metadata.labels?.['app.kubernetes.io/component'] !== 'api');

describe('the Temporal connection', () => {
  it('address, namespace and task queue in the ConfigMap; Temporal Cloud API key from its own Secret', () => {
    expect(named(production, 'ConfigMap', FULLNAME).data).toMatchObject({
      TEMPORAL_ADDRESS: 'us-east-1.aws.api.temporal.io:7233',
      TEMPORAL_NAMESPACE: 'prospect-enrichment.a1b2c',
      TEMPORAL_TASK_QUEUE: 'research',
    });
    for (const deployment of processes(production)) {
      expect(envOf(containerOf(deployment), 'TEMPORAL_API_KEY')).toEqual({ name: 'TEMPORAL_API_KEY', valueFrom: { secretKeyRef: { name: 'temporal-cloud', key: 'api-key' } } });
    }
    expect(processes(byDefault).some((deployment) => envOf(containerOf(deployment), 'TEMPORAL_API_KEY'))).toBe(false);
  });

  it('mTLS: the client certificate, key and CA mounted from a Secret where the TEMPORAL_TLS_*_PATH variables point', async () => {
    const manifests = await renderChart(tools, [...TAGGED, '--set', 'temporal.tls.existingSecret=temporal-client', '--set', 'temporal.tls.caKey=ca.crt', '--set', 'temporal.tls.serverName=frontend.temporal']);
    expect(named(manifests, 'ConfigMap', FULLNAME).data!.TEMPORAL_TLS_SERVER_NAME).toBe('frontend.temporal');
    for (const deployment of processes(manifests)) {
      const pod = deployment.spec!.template!.spec;
      const container = containerOf(deployment);
      const volume = pod.volumes!.find((each) => each.secret?.secretName === 'temporal-client')!;
      expect(volume.secret!.items).toEqual([{ key: 'tls.crt', path: 'client.crt' }, { key: 'tls.key', path: 'client.key' }, { key: 'ca.crt', path: 'ca.crt' }]);
      const mountPath = container.volumeMounts!.find((mount) => mount.name === volume.name)!.mountPath;
      expect(envValue(container, 'TEMPORAL_TLS_CLIENT_CERT_PATH')).toBe(`${mountPath}/client.crt`);
      expect(envValue(container, 'TEMPORAL_TLS_CLIENT_KEY_PATH')).toBe(`${mountPath}/client.key`);
      expect(envValue(container, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH')).toBe(`${mountPath}/ca.crt`);
    }
  });

  it('a temporal.toml profile from a Secret as TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE, its address not overridden', async () => {
    const manifests = await renderChart(tools, [...TAGGED, '--set', 'temporal.address=', '--set', 'temporal.configFile.existingSecret=temporal-toml', '--set', 'temporal.configFile.profile=cloud']);
    expect(named(manifests, 'ConfigMap', FULLNAME).data!.TEMPORAL_ADDRESS).toBeUndefined();
    const container = containerOf(named(manifests, 'Deployment', `${FULLNAME}-api`));
    expect(envValue(container, 'TEMPORAL_CONFIG_FILE')).toMatch(/\/temporal\.toml$/);
    expect(envValue(container, 'TEMPORAL_PROFILE')).toBe('cloud');
    expect(await renderError(tools, [...TAGGED, '--set', 'temporal.address='])).toContain('temporal.address is required');
  });
});

describe('Worker Versioning', () => {
  const VERSIONED = [...TAGGED, '--set', 'workerVersioning.enabled=true'];
  const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

  it('is off by default, so that a fresh install takes jobs at once: no versioning variables, one Deployment per role whose name does not change with the image', () => {
    expect(workers(byDefault).map((deployment) => deployment.metadata.name)).toEqual([`${FULLNAME}-research`, `${FULLNAME}-webhooks`, `${FULLNAME}-housekeeping`]);
    for (const deployment of workers(byDefault)) {
      expect(envOf(containerOf(deployment), 'TEMPORAL_WORKER_BUILD_ID')).toBeUndefined();
      expect(envOf(containerOf(deployment), 'TEMPORAL_DEPLOYMENT_NAME')).toBeUndefined();
    }
  });

  it('on, every worker carries the Worker Deployment of the release and the image tag as its build id; the API none', async () => {
    const versioned = await renderChart(tools, VERSIONED);
    for (const [manifests, deploymentName, buildId] of [[versioned, FULLNAME, '2026.11.0'], [production, 'prospect-enrichment', '2026.10.1']] as const) {
      for (const deployment of workers(manifests)) {
        expect(envValue(containerOf(deployment), 'TEMPORAL_DEPLOYMENT_NAME')).toBe(deploymentName);
        expect(envValue(containerOf(deployment), 'TEMPORAL_WORKER_BUILD_ID')).toBe(buildId);
        expect(containerOf(deployment).image).toMatch(new RegExp(`:${buildId.replaceAll('.', '\\.')}$`));
      }
      expect(envOf(containerOf(named(manifests, 'Deployment', `${FULLNAME}-api`)), 'TEMPORAL_WORKER_BUILD_ID')).toBeUndefined();
    }
  });

  it('on, a post-install and post-upgrade hook makes the first build current, reaching Temporal as the workers do and needing no database', async () => {
    expect(ofKind(byDefault, 'Job').map((job) => job.metadata.name)).toEqual([`${FULLNAME}-migrate`]);
    const hook = named(production, 'Job', `${FULLNAME}-first-build-current`);
    expect(hook.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'post-install,post-upgrade', 'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded' });
    const container = containerOf(hook);
    expect(container.args).toEqual(['node', '--disable-warning=ExperimentalWarning', 'scripts/first-build-current.ts']);
    const research = containerOf(named(production, 'Deployment', `${FULLNAME}-research-2026-10-1`));
    for (const name of ['TEMPORAL_DEPLOYMENT_NAME', 'TEMPORAL_WORKER_BUILD_ID', 'TEMPORAL_API_KEY']) expect(envOf(container, name), name).toEqual(envOf(research, name));
    expect(container.envFrom).toEqual(research.envFrom);
    expect(envOf(container, 'DATABASE_URL')).toBeUndefined();
    const off = await renderChart(tools, [...PRODUCTION, '--set', 'workerVersioning.makeFirstBuildCurrent=false']);
    expect(ofKind(off, 'Job').map((job) => job.metadata.name)).toEqual([`${FULLNAME}-migrate`]);
  });

  it('a build id given explicitly wins over the tag', async () => {
    const manifests = await renderChart(tools, [...VERSIONED, '--set', 'image.tag=1.4.0', '--set', 'workerVersioning.buildId=1.4.0-hotfix']);
    for (const deployment of workers(manifests)) expect(envValue(containerOf(deployment), 'TEMPORAL_WORKER_BUILD_ID')).toBe('1.4.0-hotfix');
  });

  it('refuses to run without an image tag or digest: the chart\'s appVersion names no build', async () => {
    expect(await renderError(tools, [])).toContain('image.tag is required (or image.digest)');
    expect(await renderError(tools, ['--set', 'workerVersioning.enabled=true'])).toContain('image.tag is required (or image.digest)');
  });

  it('with a digest pinned, every process pulls it and the build id carries it, so an image pushed again under the same tag is another build', async () => {
    const pinned = await renderChart(tools, [...VERSIONED, '--set', `image.digest=${DIGEST}`]);
    const repushed = await renderChart(tools, [...VERSIONED, '--set', `image.digest=sha256:${'f'.repeat(64)}`]);
    for (const deployment of ofKind(pinned, 'Deployment')) expect(containerOf(deployment).image).toBe(`prospect-enrichment@${DIGEST}`);
    for (const job of ofKind(pinned, 'Job')) expect(containerOf(job).image).toBe(`prospect-enrichment@${DIGEST}`);
    const buildIds = (manifests: Manifest[]) => [...new Set(workers(manifests).map((deployment) => envValue(containerOf(deployment), 'TEMPORAL_WORKER_BUILD_ID')))];
    expect(buildIds(pinned)).toEqual(['2026.11.0-0123456789ab']);
    expect(buildIds(repushed)).toEqual(['2026.11.0-ffffffffffff']);
    expect(workers(pinned).map((deployment) => deployment.metadata.name)).toContain(`${FULLNAME}-research-2026-11-0-0123456789`);
    // A digest alone is enough.
    const digestOnly = await renderChart(tools, ['--set', 'workerVersioning.enabled=true', '--set', `image.digest=${DIGEST}`]);
    expect(buildIds(digestOnly)).toEqual(['sha256-0123456789ab']);
    expect(named(digestOnly, 'Deployment', `${FULLNAME}-api`).metadata.labels!['app.kubernetes.io/version']).toBe('sha256-0123456789ab');
  });

  it('a draining build keeps Deployments of its own, with its image and build id, beside the new build', async () => {
    const manifests = await renderChart(tools, [...PRODUCTION, '--set', 'workerVersioning.drainingBuilds[0].buildId=2026.09.3', '--set', 'workerVersioning.drainingBuilds[0].roles={research,crm}']);
    const names = workers(manifests).map((deployment) => deployment.metadata.name);
    expect(names).toEqual(expect.arrayContaining([`${FULLNAME}-research-2026-09-3`, `${FULLNAME}-crm-2026-09-3`, `${FULLNAME}-research-2026-10-1`]));
    expect(names).not.toContain(`${FULLNAME}-webhooks-2026-09-3`);
    const old = named(manifests, 'Deployment', `${FULLNAME}-research-2026-09-3`);
    const current = named(manifests, 'Deployment', `${FULLNAME}-research-2026-10-1`);
    expect(containerOf(old).image).toBe('registry.example.com/prospect-enrichment:2026.09.3');
    expect(envValue(containerOf(old), 'TEMPORAL_WORKER_BUILD_ID')).toBe('2026.09.3');
    expect(old.spec!.replicas).toBe(1);
    // Selectors apart, or the two Deployments would fight over each other's pods.
    expect(old.spec!.selector!.matchLabels['prospect-enrichment/build-id']).toBe('2026.09.3');
    expect(current.spec!.selector!.matchLabels['prospect-enrichment/build-id']).toBe('2026.10.1');
    expect(await renderError(tools, [...PRODUCTION, '--set', 'workerVersioning.drainingBuilds[0].buildId=2026.10.1'])).toContain("2026.10.1 is the release's own build");
    // One pinned by digest is pulled by it.
    const byDigest = await renderChart(tools, [...PRODUCTION, '--set', 'workerVersioning.drainingBuilds[0].buildId=2026.09.3-0123456789ab', '--set', `workerVersioning.drainingBuilds[0].digest=${DIGEST}`]);
    expect(containerOf(named(byDigest, 'Deployment', `${FULLNAME}-research-2026-09-3-0123456789`)).image).toBe(`registry.example.com/prospect-enrichment@${DIGEST}`);
  });
});

describe('the KEDA ScaledObject of the research workers', () => {
  it('is off by default', () => {
    expect(byDefault.filter((manifest) => manifest.apiVersion.startsWith('keda.sh/'))).toEqual([]);
  });

  it("scales the current build's research Deployment, which then sets no replicas of its own", () => {
    const scaled = named(production, 'ScaledObject', `${FULLNAME}-research`);
    expect(scaled.apiVersion).toBe('keda.sh/v1alpha1');
    const target = scaled.spec!.scaleTargetRef as { apiVersion: string; kind: string; name: string };
    expect(target).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: `${FULLNAME}-research-2026-10-1` });
    expect(named(production, 'Deployment', target.name).spec!.replicas).toBeUndefined();
    const { minReplicaCount, maxReplicaCount } = scaled.spec as { minReplicaCount: number; maxReplicaCount: number };
    expect([minReplicaCount, maxReplicaCount]).toEqual([3, 20]);
  });

  it("triggers on the research task queue's backlog of that build, every metadata value a string as KEDA reads them", () => {
    const scaled = named(production, 'ScaledObject', `${FULLNAME}-research`);
    const triggers = scaled.spec!.triggers as { type: string; metadata: Record<string, unknown>; authenticationRef: { name: string } }[];
    expect(triggers).toHaveLength(1);
    const [trigger] = triggers;
    expect(trigger.type).toBe('temporal');
    expect(Object.values(trigger.metadata).every((value) => typeof value === 'string')).toBe(true);
    const config = named(production, 'ConfigMap', FULLNAME).data!;
    const research = containerOf(named(production, 'Deployment', `${FULLNAME}-research-2026-10-1`));
    expect(trigger.metadata).toEqual({
      endpoint: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      queueTypes: 'workflow,activity',
      targetQueueSize: '200',
      activationTargetQueueSize: '0',
      workerDeploymentName: envValue(research, 'TEMPORAL_DEPLOYMENT_NAME'),
      workerDeploymentBuildId: envValue(research, 'TEMPORAL_WORKER_BUILD_ID'),
    });
    const auth = named(production, 'TriggerAuthentication', trigger.authenticationRef.name);
    expect(auth.spec!.secretTargetRef).toEqual([{ parameter: 'apiKey', name: 'temporal-cloud', key: 'api-key' }]);
  });

  it('with mTLS, authenticates with the workers\' client certificate, key and CA', async () => {
    const manifests = await renderChart(tools, [...TAGGED, '--set', 'keda.enabled=true', '--set', 'temporal.tls.existingSecret=temporal-client', '--set', 'temporal.tls.caKey=ca.crt']);
    const [auth] = ofKind(manifests, 'TriggerAuthentication');
    expect(auth.spec!.secretTargetRef).toEqual([
      { parameter: 'cert', name: 'temporal-client', key: 'tls.crt' },
      { parameter: 'key', name: 'temporal-client', key: 'tls.key' },
      { parameter: 'ca', name: 'temporal-client', key: 'ca.crt' },
    ]);
    const [scaled] = ofKind(manifests, 'ScaledObject');
    expect((scaled.spec!.triggers as { authenticationRef: { name: string } }[])[0].authenticationRef.name).toBe(auth.metadata.name);
  });
});
