// The one way configuration is read from the environment (docs/architecture.md#configuration-is-read-once).
//
//   loadDotEnv()                      the root `.env` into process.env; variables already set win
//   parseEnv(ZFooEnv, env)            a z.object of variables → typed values, or a ConfigError
//   envVar.port() / .int() / …        schemas that say what they accept, for the one-line error
//   exitOnConfigError('api', error)   an entry point's catch: one line per bad variable, exit 78
//
// A blank value (`PORT=` in a .env file, `export PORT=''`) counts as unset
// everywhere: the variable's default applies, or it is reported missing.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv as parseDotEnvText } from 'node:util';
import { z } from 'zod';

export type Env = Record<string, string | undefined>;

const ROOT = join(import.meta.dirname, '..');

/** sysexits.h EX_CONFIG: the configuration is wrong, a restart will not help. */
export const CONFIG_ERROR_EXIT_CODE = 78;

/** One problem per variable, each one line: `PORT=abc is not accepted: expected a whole number from 0 to 65535`. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Reads `.env` in the checkout's root (or `path`) into `env`. The environment
 * takes precedence: only variables that are unset or blank there are filled
 * in. Returns the names it set. A missing file is no error.
 */
export function loadDotEnv(path = join(ROOT, '.env'), env: Env = process.env): string[] {
  if (!existsSync(path)) return [];
  let values: Env;
  try {
    values = parseDotEnvText(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError([`${path} cannot be read: ${(error as Error).message}`]);
  }
  const set: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (!isBlank(env[name])) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}

const isBlank = (value: string | undefined) => value === undefined || value.trim() === '';

/** The environment with blank values removed, so that defaults and `optional()` apply to them. */
export function withoutBlanks(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => !isBlank(value)));
}

/**
 * Parses the variables of `schema` (a z.object keyed by variable name) from
 * `env`, blanks counting as unset. Throws a ConfigError naming each bad
 * variable, its value (unless secret) and what it accepts.
 */
export function parseEnv<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>, env: Env = process.env): z.infer<z.ZodObject<Shape>> {
  const present = withoutBlanks(env);
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = new Map<string, string>();
  for (const issue of parsed.error.issues) {
    const name = String(issue.path[0] ?? '');
    if (problems.has(name)) continue;
    const field = schema.shape[name] as z.ZodType | undefined;
    const accepts = field ? acceptsOf(field) : null;
    const value = present[name];
    const shown = value === undefined ? `${name} is not set` : `${name}=${isSecret(name) ? '…' : JSON.stringify(value)} is not accepted`;
    problems.set(name, `${shown}: expected ${accepts ?? issue.message}`);
  }
  throw new ConfigError([...problems.values()]);
}

const isSecret = (name: string) => /KEY|SECRET|PASSWORD|TOKEN/.test(name) || name === 'DATABASE_URL';

/** The description set by an `envVar` builder, looked up through `.optional()` / `.default()` wrappers. */
function acceptsOf(schema: z.ZodType): string | null {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current.description) return current.description;
    const def = current._zod.def as { innerType?: z.ZodType; in?: z.ZodType };
    current = def.innerType ?? def.in;
  }
  return null;
}

const whole = (min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).describe(max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`);

/** Schemas for variables, each describing what it accepts (shown when a value is refused). */
export const envVar = {
  /** Any non-blank text, trimmed. */
  text: () => z.string().trim().min(1).describe('a non-empty text'),
  int: ({ min = 0, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {}) => whole(min, max),
  /** A TCP port; 0 asks the system for a free one. */
  port: () => whole(0, 65535),
  /** `true` or `false` (also `1`/`0`, `yes`/`no`), as a boolean. */
  boolean: () =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .transform((value) => value === 'true' || value === '1' || value === 'yes')
      .describe('true or false'),
  oneOf: <const Values extends readonly [string, ...string[]]>(values: Values) => z.enum(values).describe(`one of ${values.join(', ')}`),
  /** An absolute URL with one of the given schemes (`['http', 'https']`). */
  url: (schemes: readonly string[]) =>
    z.url({ protocol: new RegExp(`^(${schemes.join('|')})$`) }).describe(`a URL starting with ${schemes.map((scheme) => `${scheme}://`).join(' or ')}`),
  /** `host:port`, as Temporal addresses are written. */
  hostPort: () => z.string().trim().regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/).describe('host:port, e.g. 127.0.0.1:7233'),
};

/**
 * The catch of an entry point's start-up: a ConfigError becomes its lines on
 * stderr and exit code 78, never a stack trace; anything else is rethrown.
 */
export function exitOnConfigError(program: string, error: unknown): never {
  if (!(error instanceof ConfigError)) throw error;
  for (const problem of error.problems) process.stderr.write(`${program}: configuration: ${problem}\n`);
  process.exit(CONFIG_ERROR_EXIT_CODE);
}
