import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CRM_SEARCH_ATTRIBUTES } from '../../domain/crm/crm.ts';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../domain/research/contract.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { FAIRNESS_DYNAMIC_CONFIG, ensureTemporalCli } from '../../scripts/lib/temporal-server.ts';
import { WORKER_ROLES } from '../../worker/role-names.ts';

// deploy/compose.yaml cannot run here (no Docker): it is validated against the
// Compose Specification's JSON schema, and the fields that matter are read
// from the file. The schema is compose-spec/compose-spec's
// schema/compose-spec.json as published (git blob 5db97d0f, last changed in
// commit a08f8d5), kept beside this test as compose-spec.json.
interface Service {
  image: string;
  build?: { context: string };
  profiles?: string[];
  ports?: string[];
  command?: string[];
  environment?: Record<string, string | number>;
  env_file?: { path: string; required: boolean }[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  restart?: string;
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const text = readFileSync(join(ROOT, 'deploy/compose.yaml'), 'utf8');
// Compose resolves YAML merge keys (<<) and then ${…} from the environment and deploy/.env.
const interpolated = (env: Record<string, string>) => interpolate(parse(text, { merge: true }), env) as ComposeFile;
const compose = interpolated({});
const services = compose.services;
const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'compose-spec.json'), 'utf8')) as object;
// The schema names draft-07 by its https address; Ajv holds draft-07 under its http one.
// Ajv's strict type checks are about a schema's style (this one is Compose's, as published), not about the file.
const draft07 = JSON.parse(readFileSync(join(ROOT, 'node_modules/ajv/dist/refs/json-schema-draft-07.json'), 'utf8')) as object;
const ajv = new Ajv({ allErrors: true, strictTypes: false }).addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' });
const validate = ajv.compile(schema);

/** Compose's interpolation (`${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `$$`) over every string value. */
function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Z0-9_]+)(?:(:?)([-?])([^}]*))?\}/g, (whole, name: string | undefined, colon: string, operator: string, operand: string) => {
      if (!name) return '$';
      const set = env[name];
      const isUnset = set === undefined || (colon === ':' && set === '');
      if (!isUnset || !operator) return set ?? '';
      if (operator === '?') throw new Error(`${name}: ${operand || 'required'}`);
      return operand;
    });
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)]));
  return value;
}

const imageTag = (service: string) => services[service]!.image.split(':')[1];
const appServices = Object.entries(services).filter(([, service]) => service.build);

describe('deploy/compose.yaml', () => {
  it("is valid against the Compose Specification's schema, with and without the operator's settings", () => {
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
    const overridden = interpolated({ APP_IMAGE: 'registry.example.com/prospect-enrichment:2026.11.0', API_PORT: '8080', TEMPORAL_NAMESPACE: 'enrich' });
    expect(validate(overridden), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(overridden.services.api!.image).toBe('registry.example.com/prospect-enrichment:2026.11.0');
    expect(overridden.services.api!.ports).toEqual(['8080:3000']);
  });

  it('fails the schema where Compose would refuse the file', () => {
    const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.api!.healthcheck = { test: ['CMD', 'true'], intervall: '15s' };
    broken.services.migrate!.depends_on = { 'app-postgresql': { condition: 'service_ready' } };
    broken.services['worker-research']!.comand = ['node', 'worker/main.ts', 'research'];
    expect(validate(broken)).toBe(false);
    expect(validate.errors!.map((error) => error.instancePath)).toEqual(
      expect.arrayContaining(['/services/api/healthcheck', '/services/migrate/depends_on/app-postgresql/condition', '/services/worker-research']),
    );
  });

  it('runs the API, every worker role and the migrations from the one image, each by its command in exec form', () => {
    const expected = {
      api: ['node', 'api/main.ts'],
      migrate: ['node', 'scripts/migrate.ts'],
      ...Object.fromEntries(WORKER_ROLES.map((role) => [`worker-${role}`, ['node', 'worker/main.ts', role]])),
    };
    expect(Object.fromEntries(appServices.map(([name, service]) => [name, service.command]))).toEqual(expected);
    for (const [name, service] of appServices) {
      expect(service.image, name).toBe('prospect-enrichment:latest');
      expect(service.build, name).toEqual({ context: '..' });
      expect(service.env_file, name).toEqual([{ path: '.env', required: false }]);
      expect(service.environment, name).toMatchObject({
        DATABASE_URL: 'postgres://prospect:prospect@app-postgresql:5432/prospect',
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_NAMESPACE: 'default',
      });
    }
    // The crm role stops at start without a HubSpot app: it runs only when asked for.
    expect(Object.entries(services).filter(([, service]) => service.profiles).map(([name, service]) => [name, service.profiles])).toEqual([['worker-crm', ['crm']]]);
  });

  it('migrates once PostgreSQL is healthy, and starts the API and the workers after the migrations and the namespace setup', () => {
    expect(services.migrate!.depends_on).toEqual({ 'app-postgresql': { condition: 'service_healthy' } });
    expect(services.migrate!.restart).toBe('on-failure:3');
    for (const [name, service] of appServices.filter(([name]) => name !== 'migrate')) {
      expect(service.depends_on, name).toEqual({ migrate: { condition: 'service_completed_successfully' }, 'temporal-setup': { condition: 'service_completed_successfully' } });
      expect(service.restart, name).toBe('unless-stopped');
    }
  });

  it("checks each process's readiness on its own port, and lets it drain before Compose kills it", () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const workerPort = /WORKER_METRICS_PORT=(\d+)/.exec(dockerfile)?.[1];
    expect(workerPort).toBeDefined();
    expect(services.api!.healthcheck!.test.join(' ')).toContain("fetch('http://127.0.0.1:3000/readyz')");
    for (const role of WORKER_ROLES) expect(services[`worker-${role}`]!.healthcheck!.test.join(' '), role).toContain(`fetch('http://127.0.0.1:${workerPort}/readyz')`);
    // SHUTDOWN_GRACE_MS (20 s) and the worker's 5 s force time, within Compose's stop grace period.
    for (const [name, service] of appServices.filter(([name]) => name !== 'migrate')) expect(parseInt(service.stop_grace_period!, 10), name).toBeGreaterThan(25);
  });

  it('publishes the API, and Temporal, its UI and PostgreSQL on loopback only, each port movable', () => {
    expect(services.api!.ports).toEqual(['3000:3000']);
    expect(services.temporal!.ports).toEqual(['127.0.0.1:7233:7233']);
    expect(services['temporal-ui']!.ports).toEqual(['127.0.0.1:8233:8080']);
    expect(services['app-postgresql']!.ports).toEqual(['127.0.0.1:5432:5432']);
    expect(services['temporal-postgresql']!.ports).toBeUndefined();
    const moved = interpolated({ API_PORT: '80', TEMPORAL_PORT: '17233', TEMPORAL_UI_PORT: '18233', APP_DB_PORT: '15432' }).services;
    expect([moved.api!.ports, moved.temporal!.ports, moved['temporal-ui']!.ports, moved['app-postgresql']!.ports]).toEqual([['80:3000'], ['127.0.0.1:17233:7233'], ['127.0.0.1:18233:8080'], ['127.0.0.1:15432:5432']]);
    expect(compose.volumes).toEqual({ 'temporal-postgresql': null, 'app-postgresql': null });
  });

  it('pins the Temporal server and UI of the dev server that npm run dev runs', () => {
    const version = execFileSync(ensureTemporalCli(ROOT), ['--version'], { encoding: 'utf8' });
    const [, server, ui] = /Server (\d+\.\d+\.\d+), UI (\d+\.\d+\.\d+)/.exec(version) ?? [];
    expect(server, version).toBeDefined();
    for (const name of ['temporal', 'temporal-schema', 'temporal-setup']) expect(imageTag(name), name).toBe(server);
    expect(services.temporal!.image).toBe(`temporalio/server:${server}`);
    expect(services['temporal-ui']!.image).toBe(`temporalio/ui:${ui}`);
  });

  it('sets Temporal up in order on its own PostgreSQL, checking health at each step', () => {
    expect(services['temporal-postgresql']!.healthcheck!.test.join(' ')).toContain('pg_isready');
    expect(services['app-postgresql']!.healthcheck!.test.join(' ')).toContain('pg_isready -U prospect -d prospect');
    expect(services.temporal!.healthcheck!.test.join(' ')).toMatch(/nc -w 1 127\.0\.0\.1 7233/);
    expect(services['temporal-schema']!.depends_on).toEqual({ 'temporal-postgresql': { condition: 'service_healthy' } });
    expect(services.temporal!.depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(services['temporal-setup']!.depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(services['temporal-ui']!.depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'temporal-postgresql', DYNAMIC_CONFIG_FILE_PATH: 'config/dynamicconfig/docker.yaml' });
  });

  it('turns Task Queue Fairness on with the dev server’s settings', () => {
    const dynamicConfig = parse((compose as unknown as { configs: Record<string, { content: string }> }).configs['temporal-dynamic-config']!.content) as Record<string, Array<{ value: unknown }>>;
    expect(FAIRNESS_DYNAMIC_CONFIG['matching.enableFairness']).toBe(true);
    for (const [name, value] of Object.entries(FAIRNESS_DYNAMIC_CONFIG)) expect(dynamicConfig[name], name).toEqual([{ value, constraints: {} }]);
  });

  it('registers every search attribute the app sets on research workflows, CRM Schedules and sync runs', () => {
    const setup = services['temporal-setup']!.command!.join('\n');
    expect(setup).toContain('temporal operator search-attribute create --namespace "$NAMESPACE" --name "$1" --type "$2"');
    for (const [name, type] of Object.entries({ ...RESEARCH_SEARCH_ATTRIBUTES, ...CRM_SEARCH_ATTRIBUTES })) {
      expect(setup).toContain(`ensure_attribute ${name} ${type}`);
    }
  });
});
