import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClientConfigFromToml } from '@temporalio/envconfig';
import { parse as parseYaml } from 'yaml';
import { ensurePythonClientVenv } from '../../scripts/lib/python-client.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { codeBlocks, markdownFiles, where, type CodeBlock } from '../helpers/markdown-blocks.ts';
import { schemaMismatches } from '../helpers/json-schema.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// Every code block of README.md and docs/*.md, checked as printed. ```ts blocks
// type-check against the TypeScript client as a caller installs it, ```python
// blocks pass `mypy --strict` against the Python client, shell blocks parse,
// yaml parses, .env files are NAME=value lines, toml blocks load as Temporal
// client profiles (@temporalio/envconfig, as the app reads them); blocks flagged `run` (```sh run,
// ```ts run, ```python run) are also run against a real API and worker, with its
// address in BASE_URL (shell) or PE_BASE_URL and a key in PE_API_KEY (clients).
// ```text, ```json and ```http are illustrations.
const run = promisify(execFile);
const KINDS: Record<string, 'ts' | 'python' | 'shell' | 'yaml' | 'env' | 'temporal-profile' | 'illustration'> = {
  ts: 'ts',
  typescript: 'ts',
  python: 'python',
  py: 'python',
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  yaml: 'yaml',
  yml: 'yaml',
  ini: 'env',
  dotenv: 'env',
  toml: 'temporal-profile',
  text: 'illustration',
  json: 'illustration',
  http: 'illustration',
};

const blocks = markdownFiles(ROOT).flatMap((file) => codeBlocks(ROOT, file));
const ofKind = (kind: string) => blocks.filter((block) => KINDS[block.lang] === kind);
const isRun = (block: CodeBlock) => block.flags.includes('run');
let workDir: string;
let python: string;

/** A caller's project: the built client installed under its package name, next to the block files. */
async function prepareWorkDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'doc-blocks-'));
  const client = join(dir, 'client-package');
  mkdirSync(client);
  copyFileSync(join(ROOT, 'clients/typescript/package.json'), join(client, 'package.json'));
  await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(ROOT, 'clients/typescript/tsconfig.json'), '--outDir', join(client, 'dist')]);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@prospect-enrichment'), { recursive: true });
  symlinkSync(client, join(modules, '@prospect-enrichment', 'client'));
  // What else a caller has installed: this checkout's packages (@types/node, standardwebhooks, …).
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (!name.startsWith('.') && name !== '@prospect-enrichment') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], moduleDetection: 'force' },
      include: ['*.ts'],
    }),
  );
  return dir;
}

const fileOf = (block: CodeBlock, extension: 'ts' | 'py') => `block_${blocks.indexOf(block)}.${extension}`;

/** A checker's errors (`block_N.py:LINE: …`, tsc's `block_N.ts(LINE,COL): …`) at their place in the page. */
function errorsInPages(output: string, extension: 'ts' | 'py'): string[] {
  return output.split('\n').flatMap((line) => {
    const match = new RegExp(`block_(\\d+)\\.${extension}(?::(\\d+):|\\((\\d+),\\d+\\):)(.*)$`).exec(line);
    if (!match) return [];
    const block = blocks[Number(match[1])];
    return [`${block.file}:${block.line + Number(match[2] ?? match[3])}:${match[4]}`];
  });
}

beforeAll(async () => {
  [workDir, python] = await Promise.all([prepareWorkDir(), ensurePythonClientVenv()]);
}, 300_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('the code blocks of README.md and docs/', () => {
  it('each say what they are: a checked language, or an illustration (text, json, http)', () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(blocks.filter((block) => !KINDS[block.lang]).map(where)).toEqual([]);
    expect(blocks.filter((block) => isRun(block) && !['ts', 'python', 'shell'].includes(KINDS[block.lang])).map(where)).toEqual([]);
  });

  it('```ts blocks type-check against the TypeScript client as a caller imports it', async () => {
    const typescript = ofKind('ts');
    expect(typescript.length).toBeGreaterThan(0);
    for (const block of typescript) writeFileSync(join(workDir, fileOf(block, 'ts')), block.code);
    const result = await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', workDir, '--pretty', 'false'], { cwd: workDir }).catch((error: { stdout: string }) => error);
    expect(errorsInPages(result.stdout, 'ts')).toEqual([]);
    expect('code' in result ? result.code : 0, result.stdout).toBe(0);
  }, 120_000);

  it('```python blocks pass mypy --strict against the Python client', async () => {
    const pythonBlocks = ofKind('python');
    expect(pythonBlocks.length).toBeGreaterThan(0);
    for (const block of pythonBlocks) writeFileSync(join(workDir, fileOf(block, 'py')), block.code);
    const files = pythonBlocks.map((block) => fileOf(block, 'py'));
    const result = await run(python, ['-m', 'mypy', '--strict', '--no-color-output', '--cache-dir', join(workDir, '.mypy_cache'), ...files], { cwd: workDir }).catch(
      (error: { stdout: string; stderr: string; code: number }) => error,
    );
    expect(errorsInPages(result.stdout, 'py')).toEqual([]);
    expect('code' in result ? result.code : 0, `${result.stdout}${result.stderr}`).toBe(0);
  }, 120_000);

  it('shell blocks parse (bash -n), yaml blocks parse, .env blocks are NAME=value lines, toml blocks are Temporal profiles', async () => {
    const failures: string[] = [];
    for (const block of ofKind('shell')) {
      await run('bash', ['-n', '-c', block.code]).catch((error: { stderr: string }) => failures.push(`${where(block)}: ${error.stderr.trim()}`));
    }
    for (const block of ofKind('yaml')) {
      try {
        parseYaml(block.code);
      } catch (error) {
        failures.push(`${where(block)}: ${(error as Error).message}`);
      }
    }
    for (const block of ofKind('temporal-profile')) {
      try {
        const profiles = loadClientConfigFromToml(new TextEncoder().encode(block.code), { strict: true }).profiles;
        if (Object.keys(profiles).length === 0) failures.push(`${where(block)}: no Temporal profile`);
      } catch (error) {
        failures.push(`${where(block)}: ${(error as Error).message}`);
      }
    }
    for (const block of ofKind('env')) {
      const wrong = block.code.split('\n').filter((line) => line.trim() && !line.startsWith('#') && !/^[A-Z][A-Z0-9_]*=\S*$/.test(line));
      if (wrong.length > 0) failures.push(`${where(block)}: not NAME=value: ${wrong.join(' | ')}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);
});

describe('the examples flagged `run`, against a running API and worker', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('are there: the curl first job, and each client\'s example', () => {
    const runs = blocks.filter(isRun);
    expect(runs.some((block) => KINDS[block.lang] === 'shell' && /curl[^\n]*\/research\b/.test(block.code))).toBe(true);
    expect(runs.some((block) => KINDS[block.lang] === 'ts' && block.code.includes('new ProspectEnrichment('))).toBe(true);
    expect(runs.some((block) => KINDS[block.lang] === 'python' && block.code.includes('ProspectEnrichment('))).toBe(true);
  });

  it('shell examples run as printed (bash -e), with BASE_URL set to the running API, and end with a completed job', async () => {
    const document = (await stack.api.get('/openapi.json')).body;
    const shellRuns = blocks.filter((each) => isRun(each) && KINDS[each.lang] === 'shell');
    expect(shellRuns.length).toBeGreaterThan(0);
    for (const block of shellRuns) {
      // The one placeholder a reader may change: the line `BASE_URL=…`; no other address of the API.
      expect(block.code.replace(/^(export\s+)?BASE_URL=.*$/m, ''), where(block)).not.toMatch(/127\.0\.0\.1:3000|localhost:3000/);
      const script = block.code.replace(/^(export\s+)?BASE_URL=\S+/m, `$1BASE_URL=${stack.apiUrl}`);
      const result = await run('bash', ['-e', '-c', script], { cwd: ROOT, env: { ...process.env, DATABASE_URL: stack.config.databaseUrl }, timeout: 150_000 }).catch(
        (error: { stdout: string; stderr: string; code: number }) => error,
      );
      expect('code' in result ? result.code : 0, `${where(block)}\n${result.stdout}${result.stderr}`).toBe(0);
      const printed = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? 'null');
      if (/research-status/.test(block.code)) {
        expect(schemaMismatches(document, { $ref: '#/components/schemas/CompletedReply' }, printed), `${where(block)}: ${result.stdout}`).toEqual([]);
      }
    }
  }, 180_000);

  it('client examples run to the end with a key and the API\'s address in PE_API_KEY and PE_BASE_URL', async () => {
    const { key, accountId } = await stack.createCustomer('growth');
    const env = { ...process.env, PE_API_KEY: key, PE_BASE_URL: stack.apiUrl };
    const clientRuns = blocks.filter((each) => isRun(each) && ['ts', 'python'].includes(KINDS[each.lang]));
    expect(clientRuns.length).toBeGreaterThan(1);
    for (const block of clientRuns) {
      const isTs = KINDS[block.lang] === 'ts';
      const file = fileOf(block, isTs ? 'ts' : 'py');
      writeFileSync(join(workDir, file), block.code);
      const command = isTs ? [process.execPath, ['--disable-warning=ExperimentalWarning', file]] : [python, [file]];
      const result = await run(command[0] as string, command[1] as string[], { cwd: workDir, env, timeout: 150_000 }).catch(
        (error: { stdout: string; stderr: string; code: number }) => error,
      );
      expect('code' in result ? result.code : 0, `${where(block)}\n${result.stdout}${result.stderr}`).toBe(0);
    }
    // They did call the API with the key they were given.
    const [{ jobs }] = await stack.orm.em.fork().execute('select count(*)::int as jobs from research_job where account_id = ? and status = ?', [accountId, 'completed']);
    expect(jobs).toBeGreaterThanOrEqual(clientRuns.length);
  }, 360_000);
});
