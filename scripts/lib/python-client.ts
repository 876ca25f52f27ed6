// The Python client's own virtual environment, under .tools/ like the other tools of this
// checkout: made once, the package installed editable with its test extras from PyPI.
import { withDirectoryLock } from './directory-lock.ts';
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './local-services.ts';

const run = promisify(execFile);
export const PYTHON_CLIENT_DIR = join(ROOT, 'clients', 'python');
export const PYTHON_CLIENT_VENV = join(ROOT, '.tools', 'python-client-venv');

/** The venv's python, with `prospect-enrichment[test]` installed; reinstalled when pyproject.toml is newer. */
export async function ensurePythonClientVenv(): Promise<string> {
  const python = join(PYTHON_CLIENT_VENV, 'bin', 'python');
  const marker = join(PYTHON_CLIENT_VENV, '.installed');
  const pyproject = join(PYTHON_CLIENT_DIR, 'pyproject.toml');
  const isInstalled = () => existsSync(marker) && statSync(marker).mtimeMs >= statSync(pyproject).mtimeMs;
  if (isInstalled()) return python;
  // Test files run in parallel processes: one installs, the others wait for it.
  await withDirectoryLock(`${PYTHON_CLIENT_VENV}.lock`, async () => {
    if (isInstalled()) return;
    const base = process.env.PYTHON ?? 'python3';
    const { stdout } = await run(base, ['-c', 'import sys; print(sys.version_info >= (3, 10))']);
    if (stdout.trim() !== 'True') throw new Error(`${base} is older than Python 3.10; set PYTHON to a newer one`);
    if (!existsSync(python)) await run(base, ['-m', 'venv', PYTHON_CLIENT_VENV]);
    await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-e', `${PYTHON_CLIENT_DIR}[test]`], { maxBuffer: 16 * 1024 * 1024 });
    await run('touch', [marker]);
  });
  return python;
}
