// `node scripts/build-workflow-bundle.ts <file>`: writes the workflow bundle
// that the image's workers load (WORKFLOW_BUNDLE_PATH) instead of bundling
// workflows/ at every start. It is built by the same @temporalio/worker the
// workers run, as Temporal requires (docs/deploy.md#the-image).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../worker/create-worker.ts';

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: node scripts/build-workflow-bundle.ts <file>\n');
  process.exit(2);
}
const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES });
const path = resolve(target);
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, code);
process.stderr.write(`Wrote the workflow bundle to ${path} (${(code.length / 1024).toFixed(0)} KiB).\n`);
