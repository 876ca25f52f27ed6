import { readdirSync, readFileSync } from 'node:fs';

// CPU of the whole stack, read from /proc: every process the bench
// started, and their children, grouped by what they are. A process's
// utime+stime covers all its threads; a parent's cutime+cstime holds the CPU
// of the children it has reaped (PostgreSQL's backends that exit in between).

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux, whatever the kernel's HZ). */
const TICKS_PER_SECOND = 100;

export type StackPart = 'temporal' | 'worker' | 'api' | 'postgres' | 'sandboxes';
/** Parts that run in production; the sandboxes stand in for outside systems and are shown apart. */
export const STACK_PARTS: readonly StackPart[] = ['temporal', 'worker', 'api', 'postgres'];

export type CpuMs = Record<StackPart, number>;

interface ProcessTimes {
  pid: number;
  ppid: number;
  /** utime + stime, ms. */
  ownMs: number;
  /** cutime + cstime (reaped children), ms. */
  reapedMs: number;
  command: string;
}

function readProcess(pid: number): ProcessTimes | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: split after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = (index: number) => Number(fields[index - 3]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return {
      pid,
      ppid: Number(fields[1]),
      ownMs: ((ticks(14) + ticks(15)) * 1000) / TICKS_PER_SECOND,
      reapedMs: ((ticks(16) + ticks(17)) * 1000) / TICKS_PER_SECOND,
      command,
    };
  } catch {
    return null; // exited while being read
  }
}

function partOf(command: string): StackPart | null {
  if (/\btemporal\b.*\bserver start-dev\b/.test(command)) return 'temporal';
  if (command.includes('worker/main.ts')) return 'worker';
  if (command.includes('api/main.ts')) return 'api';
  if (/(^|\/)postgres(\s|$)|^postgres:/.test(command)) return 'postgres';
  if (command.includes('/sandbox/')) return 'sandboxes';
  return null;
}

/**
 * CPU used so far by every descendant of `rootPid` (the bench itself is the
 * load generator and is left out), by part. Unclassified descendants (a
 * shell, a helper) count under the part of their nearest classified ancestor.
 */
export function stackCpuMs(rootPid = process.pid): CpuMs {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((entry): entry is ProcessTimes => entry !== null);
  const children = new Map<number, ProcessTimes[]>();
  for (const entry of all) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const totals: CpuMs = { temporal: 0, worker: 0, api: 0, postgres: 0, sandboxes: 0 };
  const visit = (pid: number, inherited: StackPart | null) => {
    for (const child of children.get(pid) ?? []) {
      const part = partOf(child.command) ?? inherited;
      if (part) totals[part] += child.ownMs + child.reapedMs;
      visit(child.pid, part);
    }
  };
  visit(rootPid, null);
  return totals;
}

export function cpuBetween(before: CpuMs, after: CpuMs): CpuMs {
  return Object.fromEntries(Object.entries(after).map(([part, ms]) => [part, ms - before[part as StackPart]])) as CpuMs;
}

export interface CpuPerJob {
  /** The production parts together (Temporal, worker, API, PostgreSQL), ms per job. */
  stackMs: number;
  byPart: CpuMs;
}

/** CPU of a measured window divided by the jobs completed in it, ms per job (one decimal). */
export function cpuPerJob(used: CpuMs, jobs: number): CpuPerJob {
  const round = (ms: number) => Math.round((ms / jobs) * 10) / 10;
  const byPart = Object.fromEntries(Object.entries(used).map(([part, ms]) => [part, round(ms)])) as CpuMs;
  return { stackMs: round(STACK_PARTS.reduce((sum, part) => sum + used[part], 0)), byPart };
}
