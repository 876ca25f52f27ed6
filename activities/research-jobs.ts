import { ApplicationFailure } from '@temporalio/activity';
import { hasEnded, type IResearchJob } from '../db/entities/research-job.ts';
import type { Orm } from '../db/orm.ts';
import { cacheHitOutcome, isFullCacheHit, planCompany, planProspect } from '../domain/enrichment/cache-flags.ts';
import { companyKeyOf } from '../domain/enrichment/company-key.ts';
import { classifyEmail } from '../domain/research/email-classification.ts';
import type { CompanyQuery } from '../domain/enrichment/enrichment.ts';
import { PLANS, type PlanName } from '../domain/billing/plans.ts';
import { FAILURE_TYPES, type ResearchFailure } from '../domain/research/contract.ts';
import type { CompanyPlan, ResearchOutcome, ResearchPlan } from '../domain/research/pipeline.ts';
import { fairnessKeyOf } from '../domain/research/fairness.ts';
import { completeJob, failJob } from '../services/research/jobs.ts';
import { cachedCompanyOf, storeOutcome } from '../services/research/enrichment-cache.ts';
import { readCompanyRows, readFinishingJob, readJobCompanyRows, startJobAndReadProspect } from '../services/research/job-reads.ts';
import { buildStoredReply } from '../services/research/reply.ts';
import { setSpanAttributes } from '../lib/tracing.ts';

export interface ResearchJobDeps {
  orm: Orm;
  clock: () => Date;
}

function jobNotFound(researchId: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FAILURE_TYPES.jobNotFound, message: `no research job ${researchId}`, nonRetryable: true });
}

function entitlementsOf(planName: PlanName) {
  const plan = PLANS[planName];
  return { decisionMakers: plan.hasDecisionMakers, companyNews: plan.hasCompanyNews };
}

/** The cache plan of a company found only through the person (the `planCompany` activity, and inside `lookupParts`). */
export async function planCompanyOfJob({ orm, clock }: ResearchJobDeps, researchId: string, query: CompanyQuery): Promise<CompanyPlan> {
  const companyKey = companyKeyOf(query)!;
  const read = await readJobCompanyRows(orm.em.fork(), researchId, companyKey);
  if (!read) throw jobNotFound(researchId);
  const entitlements = entitlementsOf(read.plan);
  return planCompany(companyKey, cachedCompanyOf(read.companyRows), entitlements, clock(), read.language);
}

/** Activities that read and write the job and its cached data (each forks its own EntityManager; reads in services/research/job-reads.ts). */
export function createResearchJobActivities({ orm, clock }: ResearchJobDeps) {
  return {
    /** `queued` → `processing`, then the freshness plan of docs/api.md#freshness; a full cache hit ends the job here. */
    async startResearch(researchId: string): Promise<ResearchPlan> {
      const em = orm.em.fork();
      const now = clock();
      // One statement reads the job with its prospect and marks it processing; the company's key comes from its request.
      const job = await startJobAndReadProspect(em, researchId, now);
      if (!job) throw jobNotFound(researchId);
      setSpanAttributes({ 'account.id': job.account.id });
      const jobHasEnded = hasEnded(job.status);
      const product = job.product;
      if (!product && !jobHasEnded) {
        throw ApplicationFailure.create({ type: FAILURE_TYPES.invalidState, message: 'job without product context', nonRetryable: true });
      }
      const { request, prospectRow } = job;
      const companyQuery = companyQueryOf(request, classifyEmail(request.email).companyDomain);
      const entitlements = entitlementsOf(job.account.plan);
      const companyKey = companyQuery ? companyKeyOf(companyQuery) : null;
      const companyRows = companyKey && product ? await readCompanyRows(em, job.account.id, product.id, companyKey) : null;
      const { language } = job.account;
      const company = companyKey && product ? planCompany(companyKey, cachedCompanyOf(companyRows), entitlements, now, language) : null;
      const plan: ResearchPlan = {
        researchId,
        hasEnded: jobHasEnded,
        account: fairnessKeyOf(job.account.id),
        personQuery: { email: request.email, prospectName: request.prospectName, companyName: request.companyName, socialUrl: request.socialUrl },
        companyQuery,
        entitlements,
        insightsContext: {
          language,
          productContext: {
            name: product?.name ?? '',
            description: product?.description ?? '',
            keyFeatures: product?.keyFeatures ?? [],
            targetCustomers: product?.targetCustomers ?? [],
            productUrl: product?.productUrl ?? null,
          },
        },
        prospect: planProspect(product ? prospectRow : null, now, language),
        company,
      };
      // A full cache hit is answered here, from the rows just read: one round
      // trip through Temporal instead of two, and nothing to store (docs/api.md#freshness:
      // a hit completes quickly). The reply is the one finishResearch would build.
      if (!jobHasEnded && prospectRow && isFullCacheHit(plan)) {
        const reply = buildStoredReply({
          email: job.email,
          prospectRow,
          companyRow: companyRows?.row ?? null,
          decisionMakerRows: companyRows?.decisionMakerRows ?? [],
          outcome: cacheHitOutcome(plan),
          entitlements,
          now,
        });
        await completeJob(em, researchId, reply, null, now);
        return { ...plan, hasEnded: true };
      }
      return plan;
    },

    /** The cache plan of a company found only through the person. */
    planCompany: (researchId: string, query: CompanyQuery): Promise<CompanyPlan> => planCompanyOfJob({ orm, clock }, researchId, query),

    /** Stores the parts and freezes the reply in one transaction; a job already ended is left alone. */
    async finishResearch(researchId: string, outcome: ResearchOutcome): Promise<void> {
      await orm.em.fork().transactional(async (em) => {
        const { company } = outcome;
        const read = company ? { companyKey: company.companyKey, areDecisionMakersKept: !company.areDecisionMakersRefreshed } : null;
        const job = await readFinishingJob(em, researchId, read);
        if (!job) throw jobNotFound(researchId);
        if (hasEnded(job.status)) return;
        const now = clock();
        const stored = await storeOutcome(em, { ...job, productId: job.productId! }, outcome, now);
        const reply = buildStoredReply({ email: job.email, ...stored, outcome, entitlements: entitlementsOf(job.plan), now });
        await completeJob(em, researchId, reply, outcome.ai.usage, now);
      });
    },

    /** Ends the job `failed` and refunds its credit (docs/api.md#refunds). */
    async failResearch(researchId: string, failure: ResearchFailure): Promise<void> {
      await failJob(orm.em.fork(), researchId, failure, clock());
    },
  };
}

/**
 * The company known before the person is found. docs/api.md#post-research: a company page URL
 * given by the caller overrides detection, so the e-mail domain is then left
 * out of the lookup (providers match a domain first) and of the cache key.
 */
function companyQueryOf(request: IResearchJob['request'], emailDomain: string | null): CompanyQuery | null {
  const name = request.companyName;
  if (request.companySocialUrl) return { socialUrl: request.companySocialUrl, name };
  if (emailDomain) return { domain: emailDomain, name };
  return name ? { name } : null;
}
