import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { PLANS } from '../../../domain/billing/plans.ts';
import { MAX_RUNNING_LISTS } from '../../../domain/lists/lists.ts';
import { creditStatement } from '../../../services/accounts/accounts.ts';
import { listKeyProducts } from '../../../services/accounts/products.ts';
import { creditsLeftOf } from '../../../services/lists/lists.ts';
import { accountOf, type ToolContext } from '../context.ts';
import { ZGetAccountOutput } from '../schemas.ts';
import { asToolErrors, toolResult } from '../results.ts';
import { MAX_LIST_EMAILS } from './lists.ts';

/** get_account (docs/mcp.md#tools). */
export function registerAccountTools(server: McpServer, { deps, caller }: ToolContext): void {
  server.registerTool(
    'get_account',
    {
      title: 'Account, credits and products',
      description:
        'Shows the account: credits left this billing cycle, the plan and its limits, the products (product contexts) a research may name, ' +
        'and the language insights are written in. Use before spending credits, or to pick the product for research_prospect or research_list. Free.',
      inputSchema: z.object({}),
      outputSchema: ZGetAccountOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    () =>
      asToolErrors(deps.logger, async () => {
        const em = deps.orm.em.fork();
        const account = await accountOf(em, caller);
        const statement = creditStatement(account);
        const plan = PLANS[account.plan];
        const products = await listKeyProducts(em, caller.accountId);
        return toolResult({
          plan: account.plan,
          credits_left: creditsLeftOf(account, deps.clock()),
          credits_used: statement.credits_used,
          credit_limit: statement.credit_limit,
          cycle_end: statement.cycle_end,
          limits: {
            credits_per_cycle: plan.creditsPerCycle,
            decision_makers: plan.hasDecisionMakers,
            company_news: plan.hasCompanyNews,
            lists_at_once: MAX_RUNNING_LISTS[account.plan],
            emails_per_list_call: MAX_LIST_EMAILS,
          },
          products: products.map((product) => ({ id: product.productId, name: product.name, is_default: caller.keyId !== null ? product.productId === caller.productId : products.length === 1 })),
          language: account.language,
        });
      }),
  );
}
