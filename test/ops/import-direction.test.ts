import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';

/**
 * The layers of the server code, top to bottom (docs/architecture.md): an
 * import may point at its own layer or one below it, never up. Entry points
 * (api, worker, scripts) sit on top; workflows see only the contract in
 * domain and activities' types.
 */
const LAYERS = ['domain', 'lib', 'db', 'integrations', 'services', 'activities', 'workflows', 'worker', 'api'] as const;
type Layer = (typeof LAYERS)[number];

/** Workflows import activities for their types only, and nothing else below the contract. */
const ALLOWED_BESIDE_THE_ORDER: Partial<Record<Layer, Layer[]>> = { workflows: ['domain', 'activities'] };

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function layerOf(root: string, path: string): Layer | null {
  const top = relative(root, path).split('/')[0];
  return (LAYERS as readonly string[]).includes(top) ? (top as Layer) : null;
}

function upwardImports(root: string): string[] {
  const found: string[] = [];
  for (const layer of LAYERS) {
    for (const file of filesUnder(join(root, layer))) {
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)) {
        const target = layerOf(root, resolve(dirname(file), match[1]!));
        if (!target || target === layer) continue;
        const allowed = ALLOWED_BESIDE_THE_ORDER[layer];
        const pointsDown = allowed ? allowed.includes(target) : LAYERS.indexOf(target) < LAYERS.indexOf(layer);
        if (!pointsDown) found.push(`${relative(root, file)} imports ${target}/ (${match[1]})`);
      }
    }
  }
  return found;
}

/** Import cycles between modules of the server code, each as `a.ts -> b.ts` up to its first module again. */
function importCycles(root: string): string[] {
  const imports = new Map<string, string[]>();
  for (const layer of LAYERS.filter((name) => existsSync(join(root, name)))) {
    for (const file of filesUnder(join(root, layer))) {
      const source = readFileSync(file, 'utf8');
      imports.set(file, [...source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)].map((match) => resolve(dirname(file), match[1]!)));
    }
  }
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target].map((f) => relative(root, f)).join(' -> '));
      else if (!state.has(target)) visit(target, path);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of imports.keys()) if (!state.has(file)) visit(file, []);
  return cycles;
}

describe('import direction', () => {
  it('no module of the server code imports itself through others (type imports count: a cycle is one concept in two files)', () => {
    expect(importCycles(ROOT)).toEqual([]);
  });

  it('finds an import cycle', () => {
    const root = mkdtempSync(join(tmpdir(), 'cycles-'));
    mkdirSync(join(root, 'domain'));
    writeFileSync(join(root, 'domain', 'a.ts'), "import type { B } from './b.ts';\n");
    writeFileSync(join(root, 'domain', 'b.ts'), "import type { A } from './a.ts';\n");
    expect(importCycles(root)).toEqual(['domain/a.ts -> domain/b.ts -> domain/a.ts']);
    rmSync(root, { recursive: true });
  });

  it('every import of the server code points down a layer, never up', () => {
    expect(upwardImports(ROOT)).toEqual([]);
  });

  it('finds a service reaching up into the worker, and a workflow importing a service', () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    for (const layer of LAYERS) mkdirSync(join(root, layer));
    mkdirSync(join(root, 'services', 'crm'));
    writeFileSync(join(root, 'services', 'crm', 'schedules.ts'), "import { ensureSchedule } from '../../worker/schedules.ts';\n");
    writeFileSync(join(root, 'workflows', 'sync.ts'), "import type { Crm } from '../services/crm.ts';\nimport type * as activities from '../activities/index.ts';\n");
    writeFileSync(join(root, 'worker', 'main.ts'), "import { createCrm } from '../services/crm.ts';\n");
    expect(upwardImports(root)).toEqual([
      'services/crm/schedules.ts imports worker/ (../../worker/schedules.ts)',
      'workflows/sync.ts imports services/ (../services/crm.ts)',
    ]);
    rmSync(root, { recursive: true });
  });
});
