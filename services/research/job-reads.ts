import type { EntityManager } from '@mikro-orm/postgresql';
import { CompanyRow, DecisionMakerRow, ProspectRow } from '../../db/entities/index.ts';
import type { IProspectRow } from '../../db/entities/prospect.ts';
import type { PlanName } from '../../domain/billing/plans.ts';
import type { Language } from '../../domain/research/languages.ts';
import type { ResearchJobStatus } from '../../domain/research/job-status.ts';
import type { ResearchRequest } from '../../domain/research/request.ts';
import type { CompanyRows } from './enrichment-cache.ts';

// The research activities' reads as one plain statement each where the ORM
// sent two to five (every statement costs the worker its query
// building, and PostgreSQL a parse and a round trip). Rows are hydrated with
// `em.map`, so callers get managed entities as before.

/** What starting a job needs from its row, its account and its product context. */
export interface StartingJob {
  id: string;
  /** The status before this start: `queued` became `processing` in the same statement. */
  status: ResearchJobStatus;
  email: string;
  request: ResearchRequest;
  account: { id: number; plan: PlanName; language: Language };
  product: { id: number; name: string; description: string; keyFeatures: string[]; targetCustomers: string[]; productUrl: string | null } | null;
  prospectRow: IProspectRow | null;
}

interface StartingJobRow {
  status: ResearchJobStatus;
  email: string;
  request: ResearchRequest;
  account_id: number;
  plan: PlanName;
  language: Language;
  product_id: number | null;
  product_name: string | null;
  product_description: string | null;
  key_features: string[] | null;
  target_customers: string[] | null;
  product_url: string | null;
  prospect: Record<string, unknown> | null;
}

/**
 * Reads the job, its account, its product context and its cached prospect,
 * and marks it `processing` if it was `queued`, in one statement. A
 * data-modifying CTE runs once whether or not it is referenced, and the
 * select sees the row as it was before (the status it returns is the old one).
 */
export async function startJobAndReadProspect(em: EntityManager, researchId: string, now: Date): Promise<StartingJob | null> {
  const rows: StartingJobRow[] = await em.execute(
    `with marked as (
       update research_job set status = 'processing', started_at = ? where id = ? and status = 'queued' returning id
     )
     select j.status, j.email, j.request, j.account_id, a.plan, a.language,
            j.product_id, pc.name as product_name, pc.description as product_description,
            pc.key_features, pc.target_customers, pc.product_url,
            (select row_to_json(p) from prospect p
              where p.account_id = j.account_id and p.product_id = j.product_id and p.email = j.email) as prospect
       from research_job j
       join account a on a.id = j.account_id
       left join product_context pc on pc.id = j.product_id
      where j.id = ?`,
    [now, researchId, researchId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: researchId,
    status: row.status,
    email: row.email,
    request: row.request,
    account: { id: row.account_id, plan: row.plan, language: row.language },
    product:
      row.product_id === null
        ? null
        : {
            id: row.product_id,
            name: row.product_name!,
            description: row.product_description!,
            keyFeatures: row.key_features!,
            targetCustomers: row.target_customers!,
            productUrl: row.product_url,
          },
    prospectRow: row.prospect ? em.map(ProspectRow, row.prospect) : null,
  };
}

/** The cached company of (account, product, key) with its decision makers in id order, in one statement. */
export async function readCompanyRows(em: EntityManager, accountId: number, productId: number, companyKey: string): Promise<CompanyRows | null> {
  const rows: Array<{ company: Record<string, unknown>; decision_makers: Array<Record<string, unknown>> }> = await em.execute(
    `select row_to_json(c) as company,
            coalesce((select json_agg(d order by d.id) from decision_maker d where d.company_id = c.id), '[]') as decision_makers
       from company c
      where c.account_id = ? and c.product_id = ? and c.company_key = ?`,
    [accountId, productId, companyKey],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    row: em.map(CompanyRow, row.company),
    decisionMakerRows: row.decision_makers.map((maker) => em.map(DecisionMakerRow, maker)),
  };
}

/**
 * The job's account (plan and language) and the cached company of its scope
 * under `companyKey`, in one statement: the plan of a company found only
 * through the person.
 */
export async function readJobCompanyRows(
  em: EntityManager,
  researchId: string,
  companyKey: string,
): Promise<{ plan: PlanName; language: Language; productId: number | null; companyRows: CompanyRows | null } | null> {
  const rows: Array<{ plan: PlanName; language: Language; product_id: number | null; company: Record<string, unknown> | null; decision_makers: Array<Record<string, unknown>> }> =
    await em.execute(
      `select a.plan, a.language, j.product_id, row_to_json(c) as company,
              coalesce((select json_agg(d order by d.id) from decision_maker d where d.company_id = c.id), '[]') as decision_makers
         from research_job j
         join account a on a.id = j.account_id
         left join company c on c.account_id = j.account_id and c.product_id = j.product_id and c.company_key = ?
        where j.id = ?`,
      [companyKey, researchId],
    );
  const row = rows[0];
  if (!row) return null;
  const companyRows = row.company
    ? { row: em.map(CompanyRow, row.company), decisionMakerRows: row.decision_makers.map((maker) => em.map(DecisionMakerRow, maker)) }
    : null;
  return { plan: row.plan, language: row.language, productId: row.product_id, companyRows };
}

/** What finishing a job reads first: its row and scope, and the cached rows its outcome overwrites. */
export interface FinishingJob {
  status: ResearchJobStatus;
  email: string;
  accountId: number;
  productId: number | null;
  plan: PlanName;
  prospectRow: IProspectRow | null;
  /** Null when the outcome has no company or none is cached; decision makers only when they are kept. */
  companyRows: CompanyRows | null;
}

/**
 * The job, its prospect row and the company row of `companyKey` (with its
 * decision makers unless they are about to be replaced), in one statement
 * inside the caller's transaction, as managed entities that its flush updates.
 */
export async function readFinishingJob(
  em: EntityManager,
  researchId: string,
  company: { companyKey: string; areDecisionMakersKept: boolean } | null,
): Promise<FinishingJob | null> {
  const rows: Array<{
    status: ResearchJobStatus; email: string; account_id: number; product_id: number | null; plan: PlanName;
    prospect: Record<string, unknown> | null; company: Record<string, unknown> | null; decision_makers: Array<Record<string, unknown>> | null;
  }> = await em.execute(
    `select j.status, j.email, j.account_id, j.product_id, a.plan,
            (select row_to_json(p) from prospect p
              where p.account_id = j.account_id and p.product_id = j.product_id and p.email = j.email) as prospect,
            row_to_json(c) as company,
            case when c.id is not null and ?::boolean
                 then coalesce((select json_agg(d order by d.id) from decision_maker d where d.company_id = c.id), '[]') end as decision_makers
       from research_job j
       join account a on a.id = j.account_id
       left join company c on c.account_id = j.account_id and c.product_id = j.product_id and c.company_key = ?
      where j.id = ?`,
    [company?.areDecisionMakersKept ?? false, company?.companyKey ?? null, researchId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    status: row.status,
    email: row.email,
    accountId: row.account_id,
    productId: row.product_id,
    plan: row.plan,
    prospectRow: row.prospect ? em.map(ProspectRow, row.prospect) : null,
    companyRows: row.company
      ? { row: em.map(CompanyRow, row.company), decisionMakerRows: (row.decision_makers ?? []).map((maker) => em.map(DecisionMakerRow, maker)) }
      : null,
  };
}
