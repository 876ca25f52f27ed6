import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adoptProcess, isRunning, waitFor } from '../../scripts/lib/child-process.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';

/** The first line a process prints, as a number (a pid it reports). */
async function firstNumber(child: ReturnType<typeof spawn>): Promise<number> {
  let text = '';
  for await (const chunk of child.stdout!) {
    text += chunk;
    if (text.includes('\n')) return Number(text.split('\n')[0]);
  }
  throw new Error(`no pid printed: ${text}`);
}

describe('a service we start', () => {
  it('ends when the process that started it is SIGKILLed', async () => {
    // A starter as `npm run dev` is one: startProcess, a child in its own process group, then killed.
    const starter = `
      import { startProcess } from ${JSON.stringify(join(ROOT, 'scripts/lib/child-process.ts'))};
      const service = startProcess('service', process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, logFile: '/dev/null' });
      process.stdout.write(service.child.pid + '\\n');
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', starter], { stdio: ['ignore', 'pipe', 'inherit'] });
    const servicePid = await firstNumber(parent);
    await waitFor('the service to run', async () => isRunning(servicePid), 10_000);
    const parentGone = once(parent, 'exit');
    parent.kill('SIGKILL');
    await parentGone;
    await waitFor('the service to end with its starter', async () => !isRunning(servicePid), 10_000);
  });
});

describe('a process a killed run left behind', () => {
  it('counts as stopped once it has exited, though not yet reaped (a zombie)', async () => {
    // `exec sleep` never reaps the background sleep: it stays a zombie, as an orphan does until init reaps it.
    const holder = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const pid = await firstNumber(holder);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(isRunning(pid)).toBe(false);
      const started = Date.now();
      await adoptProcess('sleep', pid).stop(5_000);
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('is running while it runs', async () => {
    const child = spawn('sleep', ['30']);
    await once(child, 'spawn');
    expect(isRunning(child.pid!)).toBe(true);
    const adopted = adoptProcess('sleep', child.pid!);
    await adopted.stop(5_000);
    expect(isRunning(child.pid!)).toBe(false);
  });
});
