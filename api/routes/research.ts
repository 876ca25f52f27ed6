import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '../../domain/errors.ts';
import { authenticate, bearerToken, invalidKey } from '../auth.ts';
import { readJsonBody } from '../read-json-body.ts';
import { parseResearchRequest } from '../research-request-parser.ts';
import { researchStatus, waitForStatus } from '../research-status.ts';
import type { ApiDeps, RequestState } from '../deps.ts';
import { submitAndStartResearch } from '../research-submission.ts';
import { setSpanAttributes } from '../../lib/tracing.ts';

const MAX_WAIT_SECONDS = 25;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function researchRouter(deps: ApiDeps): Router<RequestState> {
  const router = new Router<RequestState>();

  router.post('/research', async (ctx) => {
    const { em } = ctx.state;
    const apiKey = await authenticate(ctx, em);
    await deps.keyLastUse.touch(em, apiKey.keyId);
    if (apiKey.productId === null) throw new AppError('api_key_has_no_product', 'This key has no product context; create a new key with one.');
    const request = parseResearchRequest(await readJsonBody(ctx));
    const idempotencyKey = readIdempotencyKey(ctx);

    const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
    const { job, estimatedSeconds } = await submitAndStartResearch(deps, em, { apiKey, request, idempotencyKey, requestHash, source: 'api' });
    // A job is found by its id: the research id is also its workflow's id.
    setSpanAttributes({ research_id: job.id, 'account.id': apiKey.accountId, 'workflow.id': job.id });
    ctx.status = 202;
    ctx.body = { research_id: job.id, status: 'processing', estimated_seconds: estimatedSeconds };
  });

  router.get('/research-status/:researchId', async (ctx) => {
    const { em } = ctx.state;
    const researchId = ctx.params.researchId;
    setSpanAttributes({ research_id: researchId });
    // Authentication and the job's row in one (batched) statement: this is the endpoint clients poll.
    const found = await deps.statusReader.read(bearerToken(ctx), researchId);
    if (!found) throw invalidKey();
    const { accountId } = found.key;
    await deps.keyLastUse.touch(em, found.key.keyId);
    const waitSeconds = readWaitSeconds(ctx);
    // The body is JSON text already (a completed reply is stored that way).
    ctx.type = 'application/json';
    ctx.body = waitSeconds > 0
      ? await waitForStatus(deps, em, accountId, found.job, waitSeconds)
      : await researchStatus(deps, em, accountId, found.job);
  });

  return router;
}


function readIdempotencyKey(ctx: Context): string | null {
  // Absent is no key; present but empty is a malformed one, not "no key".
  if (ctx.headers['idempotency-key'] === undefined) return null;
  const value = ctx.get('idempotency-key');
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { field: 'Idempotency-Key' });
  }
  return value;
}

/** Extension `?wait=N`: hold the reply up to N ≤ 25 seconds until the job ends. */
function readWaitSeconds(ctx: Context): number {
  const raw = ctx.query.wait;
  if (raw === undefined) return 0;
  const seconds = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) {
    throw new AppError('invalid_request', `wait must be a whole number of seconds; at most ${MAX_WAIT_SECONDS} are waited.`, { field: 'wait' });
  }
  return Math.min(seconds, MAX_WAIT_SECONDS);
}
