import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';

// Installing a client as docs/clients.md says, from a checkout: it must run
// nothing and write nothing into the checkout.
const run = promisify(execFile);
const TS_CLIENT = join(ROOT, 'clients/typescript');
const PY_CLIENT = join(ROOT, 'clients/python');
const scratch = mkdtempSync(join(tmpdir(), 'client-packaging-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file and folder under `dir`, relative to it, those git ignores too. */
function tree(dir: string, skip: (path: string) => boolean = () => false): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !skip(path))
    .sort();
}

describe('the TypeScript client', () => {
  // What npm runs when it installs a package, a folder's included.
  const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare', 'prepublish'];
  const pkg = JSON.parse(readFileSync(join(TS_CLIENT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; files: string[]; exports: Record<string, Record<string, string>> };

  it('has no script that installing runs: it ships built', () => {
    expect(Object.keys(pkg.scripts).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
    expect(pkg.files).toContain('dist');
    for (const target of Object.values(pkg.exports['.']!)) expect(existsSync(join(TS_CLIENT, target)), target).toBe(true);
  });

  it('its committed dist/ is what its sources build to', async () => {
    const tracked = (await run('git', ['-C', ROOT, 'ls-files', 'clients/typescript/dist'])).stdout.split('\n').filter(Boolean).map((path) => relative('clients/typescript/dist', path)).sort();
    const built = join(scratch, 'dist');
    // The client's own TypeScript when installed (npm ci in its folder), else the checkout's.
    const own = join(TS_CLIENT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [existsSync(own) ? own : join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(TS_CLIENT, 'tsconfig.json'), '--outDir', built]).catch(async (error: { stdout: string }) => {
      throw new Error(`tsc failed: ${error.stdout}`);
    });
    const files = tree(built).filter((path) => path.includes('.'));
    expect(tracked).toEqual(files);
    const stale = files.filter((file) => readFileSync(join(built, file), 'utf8') !== readFileSync(join(TS_CLIENT, 'dist', file), 'utf8'));
    expect(stale, 'dist/ differs from a build of src/: cd clients/typescript && npm run build').toEqual([]);
  }, 120_000);

  it('npm install <folder> runs no script, and a program imports it by its name', async () => {
    const consumer = join(scratch, 'ts-consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const before = tree(TS_CLIENT, (path) => path.startsWith('node_modules'));
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts', TS_CLIENT], { cwd: consumer });
    const output = `${installed.stdout}\n${installed.stderr}`;
    expect(output).not.toMatch(/install-scripts|allowScripts|> .*(prepare|install)/);
    expect(tree(TS_CLIENT, (path) => path.startsWith('node_modules'))).toEqual(before);
    writeFileSync(join(consumer, 'program.mjs'), `
      import { ProspectEnrichment, verifyWebhook, WebhookVerificationError } from '@prospect-enrichment/client';
      new ProspectEnrichment({ apiKey: 'svc_live_x', baseUrl: 'http://127.0.0.1:9' });
      try { await verifyWebhook({}, '{}', 'whsec_' + Buffer.from('x'.repeat(32)).toString('base64')); } catch (error) { if (error instanceof WebhookVerificationError) console.log('refused'); else throw error; }`);
    expect((await run(process.execPath, ['program.mjs'], { cwd: consumer })).stdout.trim()).toBe('refused');
  }, 120_000);
});

describe('the Python client', () => {
  it('pip install <folder> leaves the folder as it was (no build/, no .egg-info)', async () => {
    // A copy of the folder, so that a test running pytest in the checkout meanwhile cannot change what is compared.
    const copy = join(scratch, 'python');
    cpSync(PY_CLIENT, copy, { recursive: true, filter: (source) => !/(__pycache__|\.mypy_cache|\.pytest_cache|\.egg-info|[/\\]build)$/.test(source) });
    const before = tree(copy);
    const venv = join(scratch, 'venv');
    await run(process.env.PYTHON ?? 'python3', ['-m', 'venv', venv]);
    await run(join(venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', copy], { maxBuffer: 16 * 1024 * 1024 });
    expect(tree(copy)).toEqual(before);
    const { stdout } = await run(join(venv, 'bin/python'), ['-c', 'import os, prospect_enrichment; print(sorted(os.listdir(os.path.dirname(prospect_enrichment.__file__))))']);
    expect(stdout).toContain("'py.typed'");
  }, 300_000);
});
