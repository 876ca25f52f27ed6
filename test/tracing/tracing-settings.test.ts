import { describe, expect, it } from 'vitest';
import { loadDashboardConfig } from '../../api/dashboard/config.ts';
import { scrubSql, scrubUrl } from '../../lib/trace-attributes.ts';
import { isTracingOn, startTracing, tracingSettings } from '../../lib/tracing.ts';

describe('tracing settings', () => {
  it('is off while no OTLP endpoint is set, and then loads no SDK', async () => {
    expect(tracingSettings('api', {})).toMatchObject({ isEnabled: false, serviceName: 'prospect-api' });
    expect(await startTracing('api', {})).toBe(false);
    expect(isTracingOn()).toBe(false);
  });

  it('is on with an endpoint, or OTEL_TRACES_EXPORTER=otlp, unless turned off', () => {
    expect(tracingSettings('worker-research', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ isEnabled: true, serviceName: 'prospect-worker-research', tracesUrl: 'http://127.0.0.1:4318/v1/traces' });
    expect(tracingSettings('api', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', OTEL_SERVICE_NAME: 'edge' })).toEqual({ isEnabled: true, serviceName: 'edge', tracesUrl: 'http://127.0.0.1:4318/v1/traces' });
    expect(tracingSettings('api', { OTEL_TRACES_EXPORTER: 'otlp' }).isEnabled).toBe(true);
    expect(tracingSettings('api', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_TRACES_EXPORTER: 'none' }).isEnabled).toBe(false);
    expect(tracingSettings('api', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_SDK_DISABLED: 'true' }).isEnabled).toBe(false);
    expect(tracingSettings('api', { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }).isEnabled).toBe(false);
  });

  it('names an exporter it cannot use', () => {
    expect(() => tracingSettings('api', { OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow('OTEL_TRACES_EXPORTER=zipkin is not accepted: expected one of otlp, none');
  });
});

describe('URLs in span attributes', () => {
  it('keep origin and path, never an e-mail address or a query value', () => {
    expect(scrubUrl('https://api.pdl.test/v5/person/enrich?email=ann%40acme.com&api_key=sk_123')).toBe('https://api.pdl.test/v5/person/enrich?email=:redacted&api_key=:redacted');
    expect(scrubUrl('http://127.0.0.1:4000/people/ann@acme.com/posts')).toBe('http://127.0.0.1:4000/people/:redacted/posts');
    expect(scrubUrl('http://127.0.0.1:4000/people/ann%40acme.com')).toBe('http://127.0.0.1:4000/people/:redacted');
    expect(scrubUrl('not a url')).toBe('[unparsable url]');
  });
});

describe("the trace UI's address (TRACE_UI_URL)", () => {
  const load = (env: Record<string, string>) => loadDashboardConfig({ DASHBOARD_MODE: 'off', ...env }, 'http://127.0.0.1:3000');

  it('is no address while unset, and the template as given when set', () => {
    expect(load({}).traceUrl).toBeNull();
    expect(load({ TRACE_UI_URL: 'http://localhost:16686/trace/{trace_id}' }).traceUrl).toBe('http://localhost:16686/trace/{trace_id}');
  });

  it('refuses an address without the trace id placeholder, or not http(s)', () => {
    for (const bad of ['http://localhost:16686', 'ftp://x/{trace_id}', 'not a url {trace_id}']) {
      expect(() => load({ TRACE_UI_URL: bad }), bad).toThrow(/TRACE_UI_URL.*\{trace_id\}/);
    }
  });
});

describe('SQL in span attributes', () => {
  it('keeps the statement, never a value written into it', () => {
    expect(scrubSql(`insert into "research_job" ("id", "email", "account_id") values ('res_abc', 'ann@acme.com', 12) returning "id"`)).toBe(
      'insert into "research_job" ("id", "email", "account_id") values (?, ?, ?) returning "id"',
    );
    expect(scrubSql(`select id from api_key where key_hash = '4d28ab' and revoked_at is null`)).toBe('select id from api_key where key_hash = ? and revoked_at is null');
    expect(scrubSql(`update t set note = 'it''s ann@acme.com', at = E'a\\b''c', n = -3.5e2, body = $tag$ann@acme.com$tag$ where id = $1`)).toBe('update t set note = ?, at = ?, n = ?, body = ? where id = $1');
    expect(scrubSql('select c2.id, "table1".col from table1 limit 10')).toBe('select c2.id, "table1".col from table1 limit ?');
  });
});
