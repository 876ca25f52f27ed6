import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CRM_SEARCH_ATTRIBUTES } from '../../domain/crm.ts';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../domain/research-contract.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { ensureTemporalCli } from '../../scripts/lib/temporal-server.ts';

// docker-compose.temporal.yml cannot run here (no Docker): the fields that
// matter are read from the file itself.
interface Service {
  image: string;
  profiles?: string[];
  ports?: string[];
  environment?: Record<string, string | number>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  command?: string[];
}
const compose = parse(readFileSync(join(ROOT, 'docker-compose.temporal.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;

/** `${VAR:-default}` as Compose resolves it with VAR unset. */
const withDefaults = (text: string) => text.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
const imageTag = (service: string) => withDefaults(services[service]!.image).split(':')[1];

describe('docker-compose.temporal.yml', () => {
  it("pins the server and UI of the dev server that npm run dev runs", () => {
    const version = execFileSync(ensureTemporalCli(ROOT), ['--version'], { encoding: 'utf8' });
    const [, server, ui] = /Server (\d+\.\d+\.\d+), UI (\d+\.\d+\.\d+)/.exec(version) ?? [];
    expect(server, version).toBeDefined();
    for (const name of ['temporal', 'temporal-schema', 'temporal-setup']) expect(imageTag(name), name).toBe(server);
    expect(imageTag('temporal-ui')).toBe(ui);
    expect(withDefaults(services.temporal!.image)).toBe(`temporalio/server:${server}`);
    expect(withDefaults(services['temporal-ui']!.image)).toBe(`temporalio/ui:${ui}`);
  });

  it('publishes gRPC on 7233 and the UI on 8233 (as the dev server), each port movable', () => {
    expect(services.temporal!.ports).toEqual(['${TEMPORAL_PORT:-7233}:7233']);
    expect(services['temporal-ui']!.ports).toEqual(['${TEMPORAL_UI_PORT:-8233}:8080']);
    expect(services['temporal-postgresql']!.ports).toBeUndefined();
  });

  it('checks health, and starts each step after the one it needs', () => {
    expect(services['temporal-postgresql']!.healthcheck!.test.join(' ')).toContain('pg_isready');
    expect(services.temporal!.healthcheck!.test.join(' ')).toMatch(/nc -w 1 127\.0\.0\.1 7233/);
    expect(services.temporal!.depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(services['temporal-schema']!.depends_on).toEqual({ 'temporal-postgresql': { condition: 'service_healthy' } });
    expect(services['temporal-setup']!.depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'temporal-postgresql', DYNAMIC_CONFIG_FILE_PATH: 'config/dynamicconfig/docker.yaml' });
  });

  it('registers every search attribute the app sets on research workflows, CRM Schedules and sync runs', () => {
    const setup = services['temporal-setup']!.command!.join('\n');
    expect(setup).toContain('temporal operator search-attribute create --namespace "$$NAMESPACE" --name "$$1" --type "$$2"');
    for (const [name, type] of Object.entries({ ...RESEARCH_SEARCH_ATTRIBUTES, ...CRM_SEARCH_ATTRIBUTES })) {
      expect(setup).toContain(`ensure_attribute ${name} ${type}`);
    }
  });

  it("offers the app's own PostgreSQL behind the app-db profile", () => {
    const app = services['app-postgresql']!;
    expect(app.profiles).toEqual(['app-db']);
    expect(app.ports).toEqual(['${APP_DB_PORT:-5432}:5432']);
    expect(app.environment).toMatchObject({ POSTGRES_USER: 'prospect', POSTGRES_DB: 'prospect' });
    expect(app.healthcheck!.test.join(' ')).toContain('pg_isready -U prospect -d prospect');
    expect(compose.volumes).toHaveProperty('app-postgresql');
    // Every other service runs without a profile.
    expect(Object.entries(services).filter(([, service]) => service.profiles).map(([name]) => name)).toEqual(['app-postgresql']);
  });
});
