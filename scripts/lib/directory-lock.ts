import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A directory as a lock between processes (parallel test files installing one
 * tool): one takes it and works, the others wait; a lock left by a killed
 * process is taken over once older than `staleMs`.
 */
export async function withDirectoryLock(path: string, work: () => Promise<void>, staleMs = 30 * 60_000): Promise<void> {
  mkdirSync(join(path, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(path);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const lockedAt = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
      if (lockedAt !== undefined && Date.now() - lockedAt > staleMs) rmSync(path, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    await work();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}
