// `npm run migrate`: applies pending migrations to DATABASE_URL (once per release in production).
import { initOrm } from '../db/orm.ts';
import { exitOnConfigError, loadDotEnv } from '../lib/env.ts';

try {
  loadDotEnv();
} catch (error) {
  exitOnConfigError('migrate', error);
}
const databaseUrl = process.env.DATABASE_URL?.trim();
if (!databaseUrl) {
  process.stderr.write('DATABASE_URL is required\n');
  process.exit(1);
}
const orm = await initOrm(databaseUrl, { migrate: true, poolMax: 2 });
const executed = await orm.migrator.getExecuted();
process.stdout.write(`migrations applied: ${executed.length}\n`);
await orm.close();
