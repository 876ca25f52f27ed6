import { AppError } from '../../domain/errors.ts';
import type { ProductContext } from '../../domain/research/product-context.ts';
import {
  createAiClient,
  createAiConfig,
  createPageFetcher,
  extractProductContext,
  isAiUnavailable,
  PageFetchFailed,
  PageFetchRefused,
} from '../../integrations/ai/index.ts';
import { loadOutboundPolicy } from '../../integrations/web/outbound-guard.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * Drafts a product context from its page for the key form (docs/decisions.md#the-dashboard), and
 * turns every way that can fail into a reason a person can act on; the form
 * then stays empty to fill by hand (docs/dashboard.md#product-pages-to-try-offline).
 */
export function createProductContextDrafter(env: NodeJS.ProcessEnv, logger: Logger): (url: string) => Promise<ProductContext> {
  const config = createAiConfig(env);
  // Private addresses only for the hosts ALLOW_PRIVATE_HOSTS names (development and tests), whatever the model.
  const fetchPage = createPageFetcher({ policy: loadOutboundPolicy(env) });
  const ai = createAiClient(config, logger);
  return async (url) => {
    try {
      return await extractProductContext(url, { fetchPage, ai, logger });
    } catch (error) {
      throw new AppError('product_page_unreadable', unreadableReason(error));
    }
  };
}

function unreadableReason(error: unknown): string {
  if (error instanceof PageFetchRefused) {
    const reasons: Record<PageFetchRefused['reason'], string> = {
      invalid_url: 'That is not a valid web address.',
      unsupported_scheme: 'Only http:// and https:// addresses can be read.',
      private_address: `${error.message}`,
      too_many_redirects: 'The page redirects too many times (more than 3).',
      too_large: 'The page is larger than 1 MiB.',
    };
    return `${reasons[error.reason]} Fill in the fields by hand.`;
  }
  if (error instanceof PageFetchFailed) {
    const reasons: Record<PageFetchFailed['reason'], string> = {
      unreachable: 'The page could not be reached (no answer, or the connection was refused or dropped).',
      http_status: `The page answered with an error (${error.message}).`,
      not_html: 'The address is not a web page (HTML).',
    };
    return `${reasons[error.reason]} Fill in the fields by hand.`;
  }
  if (isAiUnavailable(error)) return 'The page was read, but the product details could not be extracted right now. Fill in the fields by hand.';
  throw error;
}
