import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFORMANCE_REVISIONS, conformanceSuiteVersion, runConformanceSuite, type ConformanceRevision } from '../../scripts/lib/mcp-conformance.ts';
import { startTestStack, type TestStack, type TestStackOptions } from '../helpers/test-stack.ts';
import { registerConformanceFixtures } from './conformance-fixtures.ts';

// The official conformance suite (docs/mcp.md#conformance), a child process,
// against the real API's /mcp with an API key: the scenarios each revision
// requires, at that revision's wire. The production build must pass the
// generic ones; the test build adds the suite's fixtures for the rest. What may
// fail is listed, with why, in conformance/<build>.yaml.

/** The scenarios named in section 5 of the MCP work, which the production build must pass, not merely baseline. */
const GENERIC: Record<ConformanceRevision, string[]> = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '2026-07-28': ['server-stateless', 'tools-list', 'dns-rebinding-protection', 'caching'],
};
const FAILING = new Set(['FAILURE', 'WARNING']);
const suiteRequire = createRequire(import.meta.url);

function requiredScenarios(revision: ConformanceRevision): string[] {
  const file = suiteRequire.resolve(`@modelcontextprotocol/conformance/requirements/${revision}.yaml`);
  return (parse(readFileSync(file, 'utf8')) as { server: string[] }).server;
}

function baseline(build: string): { path: string; scenarios: Set<string>; checks: Set<string> } {
  const path = new URL(`./conformance/${build}.yaml`, import.meta.url).pathname;
  const entries = (parse(readFileSync(path, 'utf8')) as { server: string[] }).server;
  return { path, scenarios: new Set(entries.filter((entry) => !entry.includes(':'))), checks: new Set(entries.filter((entry) => entry.includes(':'))) };
}

describe.each([
  { build: 'production', options: {} },
  { build: 'test-build', options: { mcpTestFixtures: registerConformanceFixtures } },
] satisfies Array<{ build: string; options: TestStackOptions }>)('conformance suite against the $build', ({ build, options }) => {
  let stack: TestStack;
  let key: string;
  const expected = baseline(build);

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false, ...options });
    key = (await stack.createCustomer('scale')).key;
  });
  afterAll(async () => stack?.stop());

  it.each(CONFORMANCE_REVISIONS)(`passes what %s requires, but for ${build}.yaml`, async (revision) => {
    const url = new URL('/mcp', stack.apiUrl).href;
    const result = await runConformanceSuite({ url, authorization: `Bearer ${key}`, revision, expectedFailures: expected.path });
    console.log(`@modelcontextprotocol/conformance ${conformanceSuiteVersion()}, ${build}, --requirements ${revision}\n${result.summary}`);
    expect(result.exitCode, result.output).toBe(0);

    const selected = requiredScenarios(revision).filter((scenario) => !expected.scenarios.has(scenario));
    if (build === 'production') for (const scenario of GENERIC[revision]) expect(selected).toContain(scenario);
    for (const scenario of selected) {
      const checks = result.scenarios.get(scenario);
      expect(checks, `${scenario} did not run`).toBeDefined();
      const failed = checks!.filter((check) => FAILING.has(check.status) && !expected.checks.has(`${scenario}:${check.id}`));
      expect(failed, scenario).toEqual([]);
      if (GENERIC[revision].includes(scenario)) expect(checks!.some((check) => check.status === 'SUCCESS'), `${scenario}: no check passed`).toBe(true);
    }
  }, 300_000);
});
