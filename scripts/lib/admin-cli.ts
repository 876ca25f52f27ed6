// The admin command's command line: one table of commands, each with its
// flags and its usage, so that `--help` at any level, an unknown flag and a
// flag without its value are all answered from the same description.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** A wrong command line: its message goes to stderr, with exit code 1. */
export class UsageError extends Error {}

export interface CommandSpec {
  /** `account create`. */
  name: string;
  summary: string;
  /** Flags after the name, e.g. `--email E [--plan P]`. */
  synopsis: string;
  /** One line per flag: `--email E   the owner's e-mail address`. */
  details: string[];
  flags: ParseArgsOptionsConfig;
}

export type ParsedCommand =
  | { kind: 'help'; text: string }
  | { kind: 'run'; command: CommandSpec; values: Record<string, string | undefined> };

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;

export function usageOf(commands: CommandSpec[], program: string, group?: string): string {
  const shown = commands.filter((command) => !group || command.name.startsWith(`${group} `));
  const width = Math.max(...shown.map((command) => command.name.length));
  const lines = shown.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return [`Usage: ${program} ${group ?? '<command>'} ${group ? '<sub-command>' : ''} [flags]`.replace(/\s+/g, ' '), '', 'Commands:', ...lines, '', `Each prints one JSON value on stdout. \`${program} <command> --help\` for its flags.`].join('\n');
}

export function commandUsage(command: CommandSpec, program: string): string {
  return [`Usage: ${program} ${command.name} ${command.synopsis}`.trimEnd(), '', command.summary, ...(command.details.length ? ['', ...command.details.map((line) => `  ${line}`)] : [])].join('\n');
}

/**
 * Finds the command named by the first words of `argv` and parses its flags
 * strictly. `--help` / `-h` anywhere asks for the usage of what was named so
 * far. Unknown commands, unknown flags, flags without a value and stray words
 * are UsageErrors that name what is wrong.
 */
export function parseCommandLine(commands: CommandSpec[], argv: string[], program: string): ParsedCommand {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  const command = commands.find((candidate) => candidate.name === words.slice(0, 2).join(' '));
  if (!command) {
    const group = words[0];
    const isGroup = group !== undefined && commands.some((candidate) => candidate.name.startsWith(`${group} `));
    if (wantsHelp || words.length === 0) return { kind: 'help', text: usageOf(commands, program, isGroup ? group : undefined) };
    const known = isGroup ? commands.filter((candidate) => candidate.name.startsWith(`${group} `)) : commands;
    const what = isGroup && words[1] === undefined ? `"${group}" needs a sub-command` : `unknown command "${words.slice(0, isGroup ? 2 : 1).join(' ')}"`;
    throw new UsageError(`${what}; use one of: ${known.map((candidate) => candidate.name).join(', ')} (or --help)`);
  }
  if (wantsHelp) return { kind: 'help', text: commandUsage(command, program) };

  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv.slice(2), options: { ...command.flags, ...HELP_FLAG }, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(`${describeParseError(error as Error & { code?: string })}; see: ${program} ${command.name} --help`);
  }
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected "${parsed.positionals[0]}" after "${command.name}"; see: ${program} ${command.name} --help`);
  }
  const values = Object.fromEntries(Object.entries(parsed.values).filter(([name]) => name !== 'help')) as Record<string, string | undefined>;
  return { kind: 'run', command, values };
}

/** Node's messages, reworded to name the flag first. */
function describeParseError(error: Error & { code?: string }): string {
  const flag = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1] ?? 'a flag';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${flag}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument (missing|is ambiguous)/.test(error.message) ? `${flag} needs a value` : `${flag} takes no value`;
    default:
      return error.message;
  }
}
