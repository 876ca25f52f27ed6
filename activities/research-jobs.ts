import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompanyRow, ProspectRow, ResearchJob } from '../db/entities/index.ts';
import { hasEnded, type IResearchJob } from '../db/entities/research-job.ts';
import type { Orm } from '../db/orm.ts';
import { cacheHitOutcome, isFullCacheHit, planCompany, planProspect } from '../domain/cache-flags.ts';
import { companyKeyOf } from '../domain/company-key.ts';
import { classifyEmail } from '../domain/email-classification.ts';
import type { CompanyQuery } from '../domain/enrichment.ts';
import { PLANS } from '../domain/plans.ts';
import { FAILURE_TYPES, type ResearchFailure } from '../domain/research-contract.ts';
import type { CompanyPlan, ResearchOutcome, ResearchPlan } from '../domain/research-pipeline.ts';
import { completeJob, failJob, markProcessing } from '../services/research-jobs.ts';
import { cachedCompanyOf, loadCachedCompany, loadCompanyRows, storeOutcome } from '../services/enrichment-cache.ts';
import { buildStoredReply } from '../services/research-reply.ts';

export interface ResearchJobDeps {
  orm: Orm;
  clock: () => Date;
}

async function loadJob(em: EntityManager, researchId: string): Promise<IResearchJob> {
  const job = await em.findOne(ResearchJob, researchId, { populate: ['account', 'product'] });
  if (!job) throw ApplicationFailure.create({ type: FAILURE_TYPES.jobNotFound, message: `no research job ${researchId}`, nonRetryable: true });
  return job;
}

function entitlementsOf(job: IResearchJob) {
  const plan = PLANS[job.account.plan];
  return { decisionMakers: plan.hasDecisionMakers, companyNews: plan.hasCompanyNews };
}

/** The cache plan of a company found only through the person (the `planCompany` activity, and inside `lookupParts`). */
export async function planCompanyOfJob({ orm, clock }: ResearchJobDeps, researchId: string, query: CompanyQuery): Promise<CompanyPlan> {
  const em = orm.em.fork();
  const job = await loadJob(em, researchId);
  const companyKey = companyKeyOf(query)!;
  const cached = await loadCachedCompany(em, job.account.id, job.product!.id, companyKey);
  return planCompany(companyKey, cached, entitlementsOf(job), clock(), job.account.language);
}

/** Activities that read and write the job and its cached data (each forks its own EntityManager). */
export function createResearchJobActivities({ orm, clock }: ResearchJobDeps) {
  return {
    /** `queued` → `processing`, then the cache plan of spec §8.4; a full cache hit ends the job here. */
    async startResearch(researchId: string): Promise<ResearchPlan> {
      const em = orm.em.fork();
      const job = await loadJob(em, researchId);
      const now = clock();
      const jobHasEnded = hasEnded(job.status);
      const product = job.product;
      if (!product && !jobHasEnded) {
        throw ApplicationFailure.create({ type: FAILURE_TYPES.invalidState, message: 'job without product context', nonRetryable: true });
      }
      const { request } = job;
      const companyQuery = companyQueryOf(request, classifyEmail(request.email).companyDomain);
      const entitlements = entitlementsOf(job);
      const companyKey = companyQuery ? companyKeyOf(companyQuery) : null;
      // Independent statements side by side, each on its own EntityManager (a cache hit's latency).
      const [, prospectRow, companyRows] = await Promise.all([
        jobHasEnded ? null : markProcessing(orm.em.fork(), researchId, now),
        product ? orm.em.fork().findOne(ProspectRow, { account: job.account.id, product: product.id, email: job.email }) : null,
        companyKey && product ? loadCompanyRows(orm.em.fork(), job.account.id, product.id, companyKey) : null,
      ]);
      const { language } = job.account;
      const company = companyKey && product ? planCompany(companyKey, cachedCompanyOf(companyRows), entitlements, now, language) : null;
      const plan: ResearchPlan = {
        researchId,
        hasEnded: jobHasEnded,
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
        prospect: planProspect(prospectRow, now, language),
        company,
      };
      // A full cache hit is answered here, from the rows just read: one round
      // trip through Temporal instead of two, and nothing to store (spec §8.4:
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
        const job = await loadJob(em, researchId);
        if (hasEnded(job.status)) return;
        const now = clock();
        const stored = await storeOutcome(em, job, outcome, now);
        const reply = buildStoredReply({ email: job.email, ...stored, outcome, entitlements: entitlementsOf(job), now });
        await completeJob(em, researchId, reply, outcome.ai.usage, now);
      });
    },

    /** Ends the job `failed` and refunds its credit (spec §8.2). */
    async failResearch(researchId: string, failure: ResearchFailure): Promise<void> {
      await failJob(orm.em.fork(), researchId, failure, clock());
    },
  };
}

/**
 * The company known before the person is found. Spec §4.1: a company page URL
 * given by the caller overrides detection, so the e-mail domain is then left
 * out of the lookup (providers match a domain first) and of the cache key.
 */
function companyQueryOf(request: IResearchJob['request'], emailDomain: string | null): CompanyQuery | null {
  const name = request.companyName;
  if (request.companySocialUrl) return { socialUrl: request.companySocialUrl, name };
  if (emailDomain) return { domain: emailDomain, name };
  return name ? { name } : null;
}
