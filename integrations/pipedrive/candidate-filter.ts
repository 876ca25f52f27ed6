// The saved filter a candidate search reads through (docs/crm-pipedrive.md#how-candidates-are-found).
// Pipedrive's search compares text only, so the documented way to ask for
// "score ≥ minimum and status not completed" is a filter (v1 OpenAPI
// `addFilter`/`updateFilter`: type `people`, conditions as
// `{ glue: 'and', conditions: [{ glue: 'and', conditions: […] }, { glue: 'or', conditions: […] }] }`,
// each condition `{ object, field_id, operator, value, extra_value }`, at most
// 16, dates as YYYY-MM-DD), read page by page with GET /api/v2/persons?filter_id=….
import type { CandidateQuery } from '../crm/adapter.ts';
import { CrmRejected } from '../crm/errors.ts';
import { STATUS_OPTION_LABELS, type PersonField } from './fields.ts';

export const candidateFilterName = (productId: number) => `Prospect Enrichment #${productId}: candidates`;

interface Condition {
  object: 'person';
  field_id: string;
  operator: string;
  value: string | number | null;
  extra_value: null;
}

const condition = (field: PersonField, operator: string, value: string | number | null): Condition => ({ object: 'person', field_id: String(field.id), operator, value, extra_value: null });

/**
 * Score at or above the minimum, and any of: no status yet, a status other
 * than completed, or (re-enrichment) enriched before the cutoff's day. "No
 * status" is asked for in so many words: a comparison with an empty field is
 * not true in a filter, as in SQL. Before the product's fields exist (a
 * preview before the first run) nobody can be completed: the score alone.
 */
export function candidateConditions(query: CandidateQuery, fields: { score: PersonField; status?: PersonField; enrichedAt?: PersonField }) {
  const byScore = { glue: 'and', conditions: [condition(fields.score, '>=', query.minScore)] };
  if (!fields.status || !fields.enrichedAt) return { glue: 'and', conditions: [byScore] };
  const completed = fields.status.options?.find((option) => option.label === STATUS_OPTION_LABELS.completed);
  if (!completed) throw new CrmRejected(409, 'Pipedrive: the status field has no Completed option');
  const due = [condition(fields.status, 'IS NULL', null), condition(fields.status, '!=', completed.id)];
  if (query.reEnrichBefore) due.push(condition(fields.enrichedAt, '<', query.reEnrichBefore.toISOString().slice(0, 10)));
  return {
    glue: 'and',
    conditions: [byScore, { glue: 'or', conditions: due }],
  };
}
