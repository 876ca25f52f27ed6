import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';

export type Orm = MikroORM;

export function ormConfig(databaseUrl: string, poolMax = 20): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    // Migrations are listed explicitly so that no file-system discovery (and no
    // compiled output) is needed; `npm run migration:create` writes new ones.
    migrations: {
      migrationsList: MIGRATIONS,
      path: 'db/migrations',
      pathTs: 'db/migrations',
      emit: 'ts',
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: poolMax },
    // Entities are read back as plain data by our own mappers; no lazy loading surprises.
    forceUndefined: false,
    debug: false,
    allowGlobalContext: false,
  });
}

/** Connects; with `migrate`, applies pending migrations first (the dev and test bootstrap). */
export async function initOrm(databaseUrl: string, options: { migrate?: boolean; poolMax?: number } = {}): Promise<Orm> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, options.poolMax));
  if (options.migrate ?? false) await orm.migrator.up();
  return orm;
}
