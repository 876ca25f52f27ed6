import { z } from 'zod';
import { RESEARCH_DEADLINE_MS, RESEARCH_TASK_QUEUE, SWEEP_INTERVAL_MS } from '../domain/research-contract.ts';

// Only local-development values have defaults; `npm run dev` and the tests set
// DATABASE_URL and TEMPORAL_ADDRESS themselves. `.env.example` lists every variable.
const ZEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default(RESEARCH_TASK_QUEUE),
  RESEARCH_DEADLINE_MS: z.coerce.number().int().positive().default(RESEARCH_DEADLINE_MS),
  /** How long past its deadline a running job may go before the status endpoint checks its workflow still exists. */
  RESEARCH_BACKSTOP_GRACE_MS: z.coerce.number().int().nonnegative().default(15_000),
  /** How often the worker's Schedule sweeps jobs whose workflow vanished (chaos runs use seconds). */
  RESEARCH_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1_000).default(SWEEP_INTERVAL_MS),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DB_POOL_MAX: z.coerce.number().int().positive().default(20),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string };
  researchDeadlineMs: number;
  /** Deadline plus grace: a job still running after this is overdue (status backstop and sweeper). */
  researchOverdueAfterMs: number;
  researchSweepIntervalMs: number;
  logLevel: z.infer<typeof ZEnv>['LOG_LEVEL'];
  dbPoolMax: number;
}

/** Parses the environment once at start-up and fails fast with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ZEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.TEMPORAL_TASK_QUEUE },
    researchDeadlineMs: e.RESEARCH_DEADLINE_MS,
    researchOverdueAfterMs: e.RESEARCH_DEADLINE_MS + e.RESEARCH_BACKSTOP_GRACE_MS,
    researchSweepIntervalMs: e.RESEARCH_SWEEP_INTERVAL_MS,
    logLevel: e.LOG_LEVEL,
    dbPoolMax: e.DB_POOL_MAX,
  };
}
