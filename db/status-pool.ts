import pg from 'pg';
import type { Logger } from '../lib/logger.ts';

/**
 * A plain `pg` pool for the API's hottest statement, the status read (clients
 * poll it; services/research/job-status.ts batches the polls). MikroORM sends every
 * statement as text, parsed and planned again each time; a named statement
 * here is prepared once per connection. Few connections: fewer backends
 * contend less for the cores (`npm run bench`, status part, one statement per
 * poll: 4 connections gave ~3,400 req/s, 20 gave ~2,200).
 */
const STATUS_POOL_CONNECTIONS = 4;

export type StatusPool = pg.Pool;

export function createStatusPool(databaseUrl: string, logger: Logger): StatusPool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: STATUS_POOL_CONNECTIONS });
  // An idle connection that PostgreSQL closes (a restart) is dropped and
  // replaced on the next query; unhandled, the event would end the process.
  pool.on('error', (error) => logger.warn({ err: error }, 'an idle status-pool connection failed; it is replaced on demand'));
  return pool;
}
