import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import type { StatusPool } from '../db/status-pool.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';

export interface ApiDeps {
  orm: Orm;
  /** The status read's own connections (db/status-pool.ts). */
  statusPool: StatusPool;
  temporal: Client;
  config: Config;
  logger: Logger;
  clock: () => Date;
}

/** Koa state of every request: a request-scoped EntityManager (STYLE.md habit 8). */
export interface RequestState {
  em: EntityManager;
}
