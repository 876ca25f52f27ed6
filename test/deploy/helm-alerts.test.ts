import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { ensurePromtool } from '../../scripts/lib/promtool.ts';
import { CHART, KUBERNETES_VERSIONS, TAGGED, ensureTools, lintChart, ofKind, renderChart, validateManifests, type Manifest, type Tools } from './helm-render.ts';

// The alerting rules (docs/operations.md#alerts): one file, checked and
// unit-tested by Prometheus's own promtool, and shipped by the chart as a
// PrometheusRule when alerts.enabled is set.
const run = promisify(execFile);
const RULES = join(CHART, 'files', 'alerts.yaml');
const RULE_TESTS = join(ROOT, 'test', 'deploy', 'alerts.promtool.yaml');

interface RuleFile {
  groups: { name: string; rules: { alert: string; expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> }[] }[];
}
interface RuleTests {
  tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
}

let promtool: string;
let tools: Tools;
const rules = parse(readFileSync(RULES, 'utf8')) as RuleFile;
const alerts = rules.groups.flatMap((group) => group.rules);

beforeAll(async () => {
  // The first run on a machine compiles promtool and Helm (minutes each on two cores).
  const log = (line: string) => process.stderr.write(`[helm-alerts] ${line}\n`);
  promtool = await ensurePromtool(log);
  tools = await ensureTools(log);
}, 40 * 60_000);

async function promtoolRun(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(promtool, args, { cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: failure.stdout + failure.stderr };
  }
}

describe('the rules file', () => {
  it('passes promtool check rules', async () => {
    const { code, output } = await promtoolRun(['check', 'rules', RULES]);
    expect(output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(code).toBe(0);
  });

  it('holds the alerts an operator needs, each with a severity, a summary and a description', () => {
    expect(alerts.map((rule) => rule.alert).sort()).toEqual(
      ['CreditsLedgerDrift', 'CrmRunsFailing', 'ProviderErrorRateHigh', 'ResearchBacklogOld', 'ResearchFailureRateHigh', 'WebhookEndpointsFailing', 'WorkerRoleWithoutPollers'],
    );
    for (const rule of alerts) {
      expect(['page', 'ticket'], rule.alert).toContain(rule.labels.severity);
      expect(Object.keys(rule.annotations).sort(), rule.alert).toEqual(['description', 'summary']);
    }
  });

  it('passes its promtool unit tests, which make every alert fire and stay quiet', async () => {
    const { code, output } = await promtoolRun(['test', 'rules', RULE_TESTS]);
    expect(output).toContain('SUCCESS');
    expect(code, output).toBe(0);
    const tested = parse(readFileSync(RULE_TESTS, 'utf8')) as RuleTests;
    const cases = tested.tests.flatMap((test) => test.alert_rule_test);
    for (const { alert } of alerts) {
      expect(cases.some((each) => each.alertname === alert && each.exp_alerts.length > 0), `${alert} fires in a test`).toBe(true);
      expect(cases.some((each) => each.alertname === alert && each.exp_alerts.length === 0), `${alert} stays quiet in a test`).toBe(true);
    }
  });

  it('a rule that promtool refuses, and a unit test that expects the wrong alert, fail (the checks can fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pe-alerts-'));
    try {
      const broken = join(dir, 'broken.yaml');
      writeFileSync(broken, readFileSync(RULES, 'utf8').replace('max(credits_ledger_drift_accounts) > 0', 'max(credits_ledger_drift_accounts > 0'));
      const check = await promtoolRun(['check', 'rules', broken]);
      expect(check.code).not.toBe(0);
      expect(check.output).toMatch(/unclosed left parenthesis|parse error/);

      const wrong = join(dir, 'wrong.promtool.yaml');
      writeFileSync(wrong, readFileSync(RULE_TESTS, 'utf8').replace('../../deploy/helm/prospect-enrichment/files/alerts.yaml', RULES).replace('role: webhooks', 'role: research'));
      const test = await promtoolRun(['test', 'rules', wrong]);
      expect(test.code).not.toBe(0);
      expect(test.output).toContain('FAILED');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the chart', () => {
  const ON = [...TAGGED, '--set', 'alerts.enabled=true', '--set', 'alerts.labels.release=prometheus'];

  it('makes no PrometheusRule by default', async () => {
    expect(ofKind(await renderChart(tools, TAGGED), 'PrometheusRule')).toEqual([]);
  });

  it('with alerts.enabled, ships the rules file as it is in one PrometheusRule, with the labels asked for', async () => {
    const [rule] = ofKind(await renderChart(tools, ON), 'PrometheusRule') as Manifest[];
    expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', metadata: { name: 'enrich-prospect-enrichment', labels: { release: 'prometheus', 'app.kubernetes.io/component': 'alerts' } } });
    expect(rule!.spec).toEqual(rules);
  });

  it('lints, and every other object still validates, with alerts on', async () => {
    expect(await lintChart(tools, ON)).toContain('1 chart(s) linted, 0 chart(s) failed');
    const manifests = await renderChart(tools, ON);
    for (const version of KUBERNETES_VERSIONS) {
      const result = await validateManifests(tools, manifests, version);
      expect(result.problems).toEqual([]);
      expect(result.withoutSchema).toEqual(['PrometheusRule monitoring.coreos.com/v1']);
      expect(result.passed).toHaveLength(manifests.length - 1);
    }
  });
});
