// Reply shapes of the dashboard's JSON API, shared by the server's services and
// the browser: types, and the ledger kinds they name.
import type { Plan, PlanName } from '../billing/plans.ts';
import type { Language } from '../research/languages.ts';
import type { JobQueueWait } from '../research/queue-estimate.ts';
import type { ResearchProgress } from '../research/contract.ts';
import type { ResearchSource } from '../research/fanout.ts';
import type { ResearchJobStatus } from '../research/job-status.ts';

export interface CreditStatement {
  account_id: number;
  plan: PlanName;
  pending_plan: PlanName | null;
  credits_used: number;
  credit_limit: number;
  credits_remaining: number;
  cycle_start: string;
  cycle_end: string;
}

export interface Me {
  email: string;
  emailVerified: boolean;
  accountId: number;
  plan: Plan;
  language: Language;
  usageAlerts: boolean;
  credits: CreditStatement;
}

export interface KeyProduct {
  id: number;
  name: string;
  description: string;
  keyFeatures: string[];
  targetCustomers: string[];
  productUrl: string | null;
}

export interface KeyListItem {
  id: number;
  prefix: string;
  product: KeyProduct | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: 'active' | 'revoked';
  creditsThisCycle: number;
}

export interface KeyList {
  keys: KeyListItem[];
  plan: PlanName;
  /** null: unlimited. */
  activeKeyLimit: number | null;
}

export interface CreatedKey {
  key: string;
  keyId: number;
  productId: number | null;
}

export interface JobListItem {
  id: string;
  email: string;
  status: ResearchJobStatus;
  error: string | null;
  keyId: number | null;
  keyPrefix: string | null;
  productName: string | null;
  submittedAt: string;
  completedAt: string | null;
  durationMs: number | null;
  /** Who asked for the job: the API, a list run, a CRM run or an AI agent over MCP. */
  source: ResearchSource;
  /** The list the job researched a row of, when `source` is `list`. */
  listId: string | null;
  listName: string | null;
}

export interface JobPage {
  jobs: JobListItem[];
  page: number;
  pageCount: number;
  total: number;
}

export interface JobDetail extends JobListItem {
  request: Record<string, unknown>;
  /** The completed reply exactly as the API serves it (`data`, `_meta`). */
  result: { data: unknown; meta: unknown } | null;
  /** Live stage of a running job, from the workflow's progress query; null when the workflow cannot answer. */
  progress: ResearchProgress | null;
  isRefunded: boolean;
  /** While queued: the account's own jobs ahead of it and when it should be done (domain/research/queue-estimate.ts). */
  queue: JobQueueWait | null;
  /** The id of the trace the job ran in, when tracing was on for it (docs/operations.md#traces). */
  traceId: string | null;
}

/** GET /app/api/config: the server's settings a page needs. */
export interface AppConfig {
  /** A trace's address in the trace store's UI with `{trace_id}` in it (TRACE_UI_URL), or null. */
  traceUrl: string | null;
}

export const CREDIT_ENTRY_KINDS = ['consume', 'refund', 'cycle_reset', 'plan_change'] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];

export interface UsageCycle {
  start: string;
  end: string;
  isCurrent: boolean;
}

export interface Usage {
  statement: CreditStatement;
  /** Credits per UTC day of the cycle, by key id (consumed minus refunded). */
  days: Array<{ day: string; byKey: Record<string, number>; total: number }>;
  keys: Array<{ id: number | null; label: string }>;
  /** The cycle `days` and `keys` describe: the current one unless an earlier one was asked for. */
  cycle: UsageCycle;
  /** The cycles with ledger entries, newest first (at most 12): after an upgrade starts a new cycle, the last one stays readable. */
  cycles: UsageCycle[];
  ledger: Array<{ id: number; at: string; kind: CreditEntryKind; usedDelta: number; limitAfter: number; researchId: string | null; note: string | null; source: ResearchSource | null }>;
}

// Billing (services/billing/billing.ts)

export interface UpgradeOffer {
  /** `checkout` from Free; `subscription_update` from a paid plan. */
  via: 'checkout' | 'subscription_update';
  /** Charged now, in the currency's smallest unit (cents). Stripe's own preview for a paid → paid upgrade. */
  amountDueCents: number;
  currency: string;
  /** docs/decisions.md#plans: unused credits kept plus the new plan's credits for the rest of the cycle. */
  creditsCarriedOver: number;
  creditsAdded: number;
  creditLimitAfter: number;
}

export interface PlanOption extends Plan {
  isCurrent: boolean;
  /** null for the current plan and lower ones. */
  upgrade: UpgradeOffer | null;
}

export interface BillingOverview {
  plan: PlanName;
  cycle: { start: string; end: string };
  credits: { used: number; limit: number; remaining: number };
  /** A downgrade or a cancellation (`plan: 'free'`) waiting for the cycle's end, revocable until then. */
  pendingChange: { plan: PlanName; kind: 'downgrade' | 'cancellation'; effectiveAt: string } | null;
  /** Stripe's status of the paid subscription (`active`, `past_due`, …), null on Free. */
  /** Stripe's status of the subscription; `missing` when Stripe no longer has it. */
  subscriptionStatus: string | null;
  /** This cycle's latest plan change (Checkout or an upgrade): the credits it kept and the ones it added. */
  lastPlanChange: { at: string; carriedOver: number; added: number } | null;
  hasBillingAccount: boolean;
  isBillingConfigured: boolean;
  plans: PlanOption[];
}
