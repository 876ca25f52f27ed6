import Router from '@koa/router';
import { openApiDocument } from '../openapi.ts';
import type { RequestState } from '../deps.ts';

export function openApiRouter(): Router<RequestState> {
  const router = new Router<RequestState>();
  const document = openApiDocument();
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
