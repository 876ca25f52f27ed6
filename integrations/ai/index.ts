// The AI integration's public surface: the pipeline's insights port and the product-page reader.
export { createAiConfig, DEFAULT_MODEL_SANDBOX_PORT, type AiConfig } from './ai-config.ts';
export { AiUnavailable, isAiUnavailable, AI_FAILURE_REASONS, type AiFailureReason } from './ai-errors.ts';
export { createAiClient, type AiClient } from './ai-client.ts';
export { createInsightsGenerator, createInsightsGeneratorFromClient } from './insights-generator.ts';
export { createPageFetcher, type FetchPage, type FetchedPage, type PageFetchOptions } from '../web/page-fetcher.ts';
export { PageFetchFailed, PageFetchRefused } from '../web/page-fetch-errors.ts';
export { extractProductContext, type ProductContextDeps } from './product-context.ts';
