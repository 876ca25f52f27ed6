import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/env.ts';
import { connectionOptions, loadTemporalConnection } from '../../lib/temporal-connection.ts';

const dir = mkdtempSync(join(tmpdir(), 'temporal-toml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const problemsOf = (load: () => unknown) => {
  try {
    load();
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('the Temporal connection, by Temporal’s own conventions', () => {
  it('is the dev server on this machine when nothing is set', () => {
    const settings = loadTemporalConnection({ TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml') });
    expect(connectionOptions(settings)).toEqual({ address: '127.0.0.1:7233' });
    expect(settings.describe()).toBe('127.0.0.1:7233, namespace default, plain');
  });

  it('reads a temporal.toml profile, and the environment wins over it', () => {
    const file = join(dir, 'temporal.toml');
    writeFileSync(file, ['[profile.default]', 'address = "dev.internal:7233"', '', '[profile.cloud]', 'address = "acme.a1b2c.tmprl.cloud:7233"', 'namespace = "acme.a1b2c"', 'api_key = "key-from-file"', ''].join('\n'));
    expect(loadTemporalConnection({ TEMPORAL_CONFIG_FILE: file }).address).toBe('dev.internal:7233');
    const cloud = loadTemporalConnection({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud' });
    expect(connectionOptions(cloud)).toEqual({ address: 'acme.a1b2c.tmprl.cloud:7233', apiKey: 'key-from-file', tls: true });
    expect(cloud.namespace).toBe('acme.a1b2c');
    // Temporal Cloud with an API key: TLS on, and the key never in what is shown.
    expect(cloud.describe()).toBe('acme.a1b2c.tmprl.cloud:7233, namespace acme.a1b2c, API key over TLS');
    const overridden = loadTemporalConnection({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'acme-staging.a1b2c', TEMPORAL_API_KEY: 'key-from-env' });
    expect(overridden.namespace).toBe('acme-staging.a1b2c');
    expect(overridden.apiKey).toBe('key-from-env');
  });

  it('loads mTLS files named by TEMPORAL_TLS_*, and stops with one line on one that cannot be read', () => {
    const cert = join(dir, 'client.crt');
    const key = join(dir, 'client.key');
    writeFileSync(cert, 'CERT');
    writeFileSync(key, 'KEY');
    const settings = loadTemporalConnection({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: key, TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml') });
    const pair = (settings.tls as { clientCertPair?: { crt: Uint8Array; key: Uint8Array } }).clientCertPair!;
    expect([Buffer.from(pair.crt).toString(), Buffer.from(pair.key).toString()]).toEqual(['CERT', 'KEY']);
    expect(settings.describe()).toBe('temporal.internal:7233, namespace default, mTLS');
    const problems = problemsOf(() => loadTemporalConnection({ TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'missing.crt'), TEMPORAL_TLS_CLIENT_KEY_PATH: key, TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml') }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^TEMPORAL_\*: the Temporal connection cannot be read: .*missing\.crt/);
  });

  it('refuses an address that is not host:port from a profile', () => {
    const file = join(dir, 'bad.toml');
    writeFileSync(file, '[profile.default]\naddress = "temporal"\n');
    expect(problemsOf(() => loadTemporalConnection({ TEMPORAL_CONFIG_FILE: file }))).toEqual(['TEMPORAL_ADDRESS: "temporal" is not host:port']);
  });
});
