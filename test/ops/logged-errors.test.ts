// Errors in the JSON logs: each with its name, message and causes,
// wherever it is logged: under `err` or `error` by our code, and as `error`
// by Temporal's SDK ("Activity failed"), which reached the log as `{}`.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { CRM_SYNC_WORKFLOW_TYPE } from '../../domain/crm/crm.ts';
import { loggedError } from '../../domain/logged-error.ts';
import { decryptToken, encryptToken } from '../../lib/token-cipher.ts';
import { createLogger } from '../../lib/logger.ts';
import { installTemporalLogging } from '../../worker/telemetry.ts';

/** A logger whose lines land in an array, parsed. */
function capturingLogger(level = 'info') {
  const lines: Array<Record<string, any>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('test', level, destination), lines };
}

/** What the run found: a stored token that no longer decrypts (the key changed). */
function undecryptableToken(): Error {
  const stored = encryptToken(randomBytes(32), 'access-token', 'access');
  try {
    decryptToken(randomBytes(32), stored, 'access');
  } catch (cause) {
    return new Error('the stored HubSpot token cannot be read', { cause });
  }
  throw new Error('a token decrypted with the wrong key');
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a logged error', () => {
  it('shows its name, message, own fields, stack and every cause, under err, error and cause', async () => {
    const { logger, lines } = capturingLogger();
    const failure = ApplicationFailure.create({ type: 'crm_auth_revoked', message: 'HubSpot refused the token', nonRetryable: true, cause: undecryptableToken() });
    logger.warn({ error: failure }, 'under error');
    logger.warn({ err: new TypeError('under err') }, 'under err');
    logger.warn({ cause: new RangeError('under cause') }, 'under cause');
    await settle();
    expect(lines[0]!.error).toMatchObject({
      name: 'ApplicationFailure',
      message: 'HubSpot refused the token',
      type: 'crm_auth_revoked',
      nonRetryable: true,
      cause: { name: 'Error', message: 'the stored HubSpot token cannot be read', cause: { name: 'Error', message: 'Unsupported state or unable to authenticate data' } },
    });
    expect(lines[0]!.error.stack).toContain('ApplicationFailure');
    expect(lines[1]!.err).toMatchObject({ name: 'TypeError', message: 'under err' });
    expect(lines[2]!.cause).toMatchObject({ name: 'RangeError', message: 'under cause' });
  });

  it('is plain data for workflow logs too, a cycle cut short', () => {
    const looped = new Error('outer');
    (looped as Error & { cause: unknown }).cause = looped;
    const described = JSON.stringify(loggedError(looped));
    expect(described).toContain('"message":"outer"');
    expect(described).toContain('"cause":"…"');
    expect(loggedError('just a string')).toBe('just a string');
  });

  it('from Temporal\'s SDK ("Activity failed") names the token that failed to decrypt, not {}', async () => {
    const { logger, lines } = capturingLogger('warn');
    installTemporalLogging(logger, 'WARN');
    const address = process.env.TEMPORAL_ADDRESS!;
    const taskQueue = `logged-errors-${randomBytes(4).toString('hex')}`;
    const connection = await NativeConnection.connect({ address });
    // The CRM run's first activity fails as the run found it: the stored token does not decrypt.
    const worker = await Worker.create({
      connection, taskQueue, workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      activities: { crmStartRun: async () => { throw undecryptableToken(); } },
    });
    const client = new Client({ connection: await Connection.connect({ address }) });
    await worker.runUntil(async () => {
      const handle = await client.workflow.start(CRM_SYNC_WORKFLOW_TYPE, { workflowId: taskQueue, taskQueue, args: [{ productId: 1, trigger: 'manual' }] });
      const deadline = Date.now() + 20_000;
      while (!lines.some((line) => line.msg === 'Activity failed') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      await handle.terminate('test done');
    });
    await client.connection.close();
    await connection.close();
    const failed = lines.find((line) => line.msg === 'Activity failed');
    expect(failed?.error).toMatchObject({
      name: 'Error',
      message: 'the stored HubSpot token cannot be read',
      cause: { name: 'Error', message: 'Unsupported state or unable to authenticate data' },
    });
  }, 60_000);
});
