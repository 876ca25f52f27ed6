import { startProviderWorld } from './server.ts';

// `npm run dev` starts this as its own process; others find it by the URL it prints.
async function main() {
  const port = Number(process.env.PORT ?? process.env.SANDBOX_PROVIDER_PORT ?? 4010);
  const seed = process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined;
  // Optional realistic provider latency for local runs, e.g. 400 ± 300 ms.
  const meanMs = Number(process.env.SANDBOX_PROVIDER_LATENCY_MS ?? 0);
  const jitterMs = Number(process.env.SANDBOX_PROVIDER_JITTER_MS ?? 0);
  const latency = meanMs > 0 ? { '*': { meanMs, jitterMs } } : undefined;
  // e.g. 30 to behave like NewsAPI's Developer plan (and set NEWS_HISTORY_DAYS=30 for the app).
  const newsHistoryDays = process.env.SANDBOX_NEWS_HISTORY_DAYS ? Number(process.env.SANDBOX_NEWS_HISTORY_DAYS) : null;
  const world = await startProviderWorld({ port, host: process.env.SANDBOX_PROVIDER_HOST, seed, latency, newsHistoryDays });
  console.log(JSON.stringify({ service: 'provider-world', url: world.url, companies: world.world.companies.length, people: world.world.people.length }));
  const stop = () => void world.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
