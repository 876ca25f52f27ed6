// Writes a migration for the difference between the entities and the database
// at DATABASE_URL (after applying the existing ones). Usage: npm run migration:create
import { initOrm } from '../db/orm.ts';
import { loadDotEnv } from '../lib/env.ts';

loadDotEnv();
const databaseUrl = process.env.DATABASE_URL?.trim();
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const orm = await initOrm(databaseUrl);
const result = await orm.migrator.create('db/migrations', false, false);
process.stdout.write(result.fileName ? `created db/migrations/${result.fileName}; add it to db/migrations/index.ts\n` : 'no schema changes\n');
await orm.close();
