import { describe, expect, it } from 'vitest';
import type { ICompanyRow } from '../../db/entities/company.ts';
import type { IDecisionMakerRow } from '../../db/entities/decision-maker.ts';
import type { IProspectRow } from '../../db/entities/prospect.ts';
import type { ResearchOutcome } from '../../domain/research/pipeline.ts';
import { buildStoredReply } from '../../services/research/reply.ts';

// What a salesperson reads: one spelling per title, the prospect not among
// their own company's decision makers, and a reason when no person was found.

const now = new Date('2026-06-15T12:00:00Z');
const outcome = {
  prospect: { isRefreshed: true }, company: { isRefreshed: true, apisCalled: [] }, ai: { source: 'sandbox', usage: null },
} as unknown as ResearchOutcome;

const prospectRow = (email: string, profile: object | null, titleEnglish: string | null) => ({
  id: 1, email, profile, source: profile ? 'pdl' : null, fetchedAt: now, posts: null, postsFetchedAt: null,
  insights: titleEnglish ? { titleEnglish, summary: 's', openingTalk: ['a', 'b', 'c'], postSummaries: [] } : null, insightsGeneratedAt: now,
}) as unknown as IProspectRow;

const dm = (id: number, fullName: string, socialUrl: string, positionTitle: string) =>
  ({ id, fullName, socialUrl, positionTitle, pictureUrl: null, locationText: null, companyName: 'Acme' }) as unknown as IDecisionMakerRow;

const reply = (row: IProspectRow, decisionMakerRows: IDecisionMakerRow[] = []) => buildStoredReply({
  email: row.email, prospectRow: row, companyRow: null as ICompanyRow | null, decisionMakerRows, outcome,
  entitlements: { decisionMakers: true, companyNews: false }, now,
});

describe('the stored reply', () => {
  const vp = { fullName: 'Mary Smith', socialUrl: 'https://www.linkedin.com/in/mary-smith', title: 'VP of Operations', companyName: 'Acme' };

  it('shows the prospect’s title in the same spelling as the decision makers’ titles', () => {
    const { data } = reply(prospectRow('mary.smith@acme.io', vp, 'VP Of Operations'), [dm(7, 'Tom Lee', 'https://www.linkedin.com/in/tom-lee', 'VP of Operations')]);
    expect(data.prospect!.title).toBe('VP of Operations');
    expect(data.decision_makers.map((d) => d.position_title)).toEqual(['VP of Operations']);
  });

  it('leaves the prospect out of their company’s decision makers', () => {
    const rows = [dm(7, 'Mary Smith', 'https://www.linkedin.com/in/mary-smith', 'VP of Operations'), dm(8, 'Tom Lee', 'https://www.linkedin.com/in/tom-lee', 'CEO')];
    expect(reply(prospectRow('mary.smith@acme.io', vp, 'VP of Operations'), rows).data.decision_makers.map((d) => d.id)).toEqual([8]);
  });

  it('says in _meta.prospect why no person was found', () => {
    expect(reply(prospectRow('jan.kowalski@gmail.com', null, null)).meta.prospect).toMatchObject({ reason: 'free_mail' });
    expect(reply(prospectRow('office@acme.io', null, null)).meta.prospect).toMatchObject({ reason: 'role_address' });
    expect(reply(prospectRow('x7@mailinator.com', null, null)).meta.prospect).toMatchObject({ reason: 'disposable' });
    expect(reply(prospectRow('mary.smith@acme.io', vp, 'VP of Operations')).meta.prospect).not.toHaveProperty('reason');
  });
});
