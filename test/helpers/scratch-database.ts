// A database of a test file's own on the run's PostgreSQL, migrated, for
// tests that need no Temporal or API: one ORM per process the test stands
// for, each with its own connection pool, as separate processes would have.
import { randomBytes } from 'node:crypto';
import { initOrm, type Orm } from '../../db/orm.ts';
import { adminQuery } from './test-stack.ts';

export interface ScratchDatabase {
  /** One per process; the first applied the migrations. */
  orms: Orm[];
  /** Closes every ORM and drops the database. */
  drop(): Promise<void>;
}

export async function createScratchDatabase(name: string, options: { processes?: number; poolMax?: number } = {}): Promise<ScratchDatabase> {
  const adminUrl = process.env.TEST_POSTGRES_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_POSTGRES_ADMIN_URL is not set: run the tests through vitest\'s global setup (npm test)');
  const database = `test_${name}_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${database}`);
  const url = adminUrl.replace(/\/[^/]+$/, `/${database}`);
  const poolMax = options.poolMax ?? 4;
  const orms = [await initOrm(url, { migrate: true, poolMax })];
  while (orms.length < (options.processes ?? 1)) orms.push(await initOrm(url, { poolMax }));
  return {
    orms,
    async drop() {
      for (const orm of orms) await orm.close();
      await adminQuery(adminUrl, `drop database if exists ${database} with (force)`);
    },
  };
}
