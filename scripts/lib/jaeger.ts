// Jaeger v2, the local trace store (docs/operations.md#traces): compiled from
// the Go module proxy into .tools/ as Helm is (scripts/lib/helm-tools.ts),
// run with its in-memory storage, OTLP/HTTP in, its UI and query API out.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startProcess, waitFor, type ManagedProcess } from './child-process.ts';
import { withDirectoryLock } from './directory-lock.ts';
import { findGo } from './helm-tools.ts';
import { ROOT } from './local-services.ts';

const run = promisify(execFile);

export const JAEGER_VERSION = 'v1.76.0';
const JAEGER_MODULE = 'github.com/jaegertracing/jaeger';
const JAEGER_DIR = join(ROOT, '.tools', `jaeger-${JAEGER_VERSION}`);

/**
 * `JAEGER` if set, else `.tools/jaeger-<version>/jaeger`, compiled there when
 * missing (many minutes on two cores, once). Not `go install …@version`:
 * Jaeger's go.mod has a replace directive, which Go honours only in the main
 * module, so the module is downloaded from the proxy and built in place.
 */
export async function ensureJaeger(log: (line: string) => void = () => {}): Promise<string> {
  if (process.env.JAEGER) return process.env.JAEGER;
  const jaeger = join(JAEGER_DIR, 'jaeger');
  if (existsSync(jaeger)) return jaeger;
  await withDirectoryLock(`${JAEGER_DIR}.lock`, async () => {
    if (existsSync(jaeger)) return;
    log(`Compiling Jaeger ${JAEGER_VERSION} into .tools/jaeger-${JAEGER_VERSION} from the Go module proxy (once per checkout)…`);
    const startedAt = Date.now();
    const go = findGo('Jaeger', 'JAEGER');
    const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: '' };
    const { stdout } = await run(go, ['mod', 'download', '-json', `${JAEGER_MODULE}@${JAEGER_VERSION}`], { env, maxBuffer: 16 * 1024 * 1024 });
    const moduleDir = (JSON.parse(stdout) as { Dir: string }).Dir;
    mkdirSync(JAEGER_DIR, { recursive: true });
    await run(go, ['build', '-o', jaeger, './cmd/jaeger'], { cwd: moduleDir, env, maxBuffer: 16 * 1024 * 1024 });
    log(`Jaeger ${JAEGER_VERSION} compiled in ${Math.round((Date.now() - startedAt) / 1000)} s.`);
  });
  return jaeger;
}

export interface JaegerPorts {
  /** OTLP over HTTP: what OTEL_EXPORTER_OTLP_ENDPOINT points at. */
  otlpHttp: number;
  otlpGrpc: number;
  /** The UI and its query API (`/api/traces/{id}`). */
  ui: number;
  queryGrpc: number;
  health: number;
}

export interface JaegerServer {
  process: ManagedProcess;
  otlpEndpoint: string;
  uiUrl: string;
}

/**
 * Every port chosen (its defaults, 4317, 4318, 16686, 8888 …, would clash with
 * another checkout's), spans kept in memory only, its own telemetry off.
 */
export function jaegerConfig(ports: JaegerPorts, host = '127.0.0.1'): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: ${host}:${ports.health}
  jaeger_query:
    # Its own spans would go to localhost:4317, which may be another checkout's collector.
    enable_tracing: false
    storage:
      traces: memstore
    http:
      endpoint: ${host}:${ports.ui}
    grpc:
      endpoint: ${host}:${ports.queryGrpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: ${host}:${ports.otlpGrpc}
      http:
        endpoint: ${host}:${ports.otlpHttp}
processors:
  batch:
    timeout: 200ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

export async function startJaeger(options: { binary: string; ports: JaegerPorts; workDir: string; logFile?: string }): Promise<JaegerServer> {
  mkdirSync(options.workDir, { recursive: true });
  const configPath = join(options.workDir, 'jaeger.yaml');
  writeFileSync(configPath, jaegerConfig(options.ports));
  const jaeger = startProcess('jaeger', options.binary, ['--config', configPath], { logFile: options.logFile });
  const uiUrl = `http://127.0.0.1:${options.ports.ui}`;
  try {
    await waitFor('Jaeger', async () => (await fetch(`http://127.0.0.1:${options.ports.health}/status`)).ok && (await fetch(`${uiUrl}/api/services`)).ok, 60_000);
  } catch (error) {
    await jaeger.stop();
    throw error;
  }
  return { process: jaeger, otlpEndpoint: `http://127.0.0.1:${options.ports.otlpHttp}`, uiUrl };
}

// `node scripts/lib/jaeger.ts`: compiles Jaeger if needed and prints where it is.
if (import.meta.main) {
  console.log(await ensureJaeger((line) => process.stderr.write(`[jaeger] ${line}\n`)));
}
