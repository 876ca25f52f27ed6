// `npm run image [-- --tag T]`: builds the Dockerfile's image with buildah
// (localhost/prospect-enrichment:T, default `latest`) where there is no Docker
// engine, installing buildah and mmdebstrap and making the base when missing
// (docs/deploy.md#building-without-docker).
import { parseArgs } from 'node:util';
import { buildImage } from './lib/image.ts';

const { values } = parseArgs({ options: { tag: { type: 'string', default: 'latest' } } });
const log = (line: string) => process.stderr.write(`[image] ${line}\n`);
try {
  await buildImage({ tag: values.tag, log });
} catch (error) {
  log((error as Error).message);
  process.exit(1);
}
