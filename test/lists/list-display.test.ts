import { describe, expect, it } from 'vitest';
import { shownEmail } from '../../domain/research/email-address.ts';
import { buildListPreview, mappingError, parseListText, type ParsedList } from '../../domain/lists/csv.ts';
import { SHOWN_TEXT_CHARS, shortText } from '../../domain/shown-text.ts';
import { draftReply, type ListRow } from '../../services/lists/lists.ts';

// What the Lists page shows of a list's cells. A 1 MB cell was
// printed whole (a page 336,071 px tall), an invalid row showed "—" for its
// e-mail, and an internationalised domain showed in its ASCII form.

function list(text: string): ParsedList {
  const result = parseListText(text);
  if (!result.ok) throw new Error(result.error.message);
  return result.list;
}

const MEGABYTE = 1_000_000;

describe('text cut to a readable length', () => {
  it('keeps short text, folds line breaks, cuts long text with an ellipsis', () => {
    expect(shortText('  Acme GmbH  ')).toBe('Acme GmbH');
    expect(shortText('line one\r\n  line two')).toBe('line one line two');
    const cut = shortText('x'.repeat(MEGABYTE));
    expect(cut).toHaveLength(SHOWN_TEXT_CHARS);
    expect(cut.endsWith('…')).toBe(true);
    expect(shortText('abcdefghij', 5)).toBe('abcd…');
  });

  it('never cuts inside a surrogate pair', () => {
    const cut = shortText(`abc${'😀'.repeat(10)}`, 5);
    expect(cut.isWellFormed()).toBe(true);
    expect(cut).toBe('abc…');
  });
});

describe('an internationalised address as the page shows it', () => {
  it('shows the domain in its own letters and leaves other addresses alone', () => {
    expect(shownEmail('maria@xn--mller-gmbh-9db.de')).toBe('maria@müller-gmbh.de');
    expect(shownEmail('kim@mail.xn--80ak6aa92e.com')).toBe('kim@mail.аррӏе.com');
    expect(shownEmail('kim@acme.com')).toBe('kim@acme.com');
    // Not valid Punycode: shown as it is.
    expect(shownEmail('kim@xn--zz.de')).toBe('kim@xn--zz.de');
  });

  it('researches the ASCII form and shows the Unicode one in the preview', () => {
    const preview = buildListPreview(list('email\nMaria@Müller-GmbH.de\nmaria@xn--mller-gmbh-9db.de\n'), { email: 0 }, { skipFlagged: false, creditsLeft: 5 });
    expect(preview.rows.map((row) => [row.email, row.shownEmail, row.verdict])).toEqual([
      ['maria@xn--mller-gmbh-9db.de', 'maria@müller-gmbh.de', 'valid'],
      ['maria@xn--mller-gmbh-9db.de', 'maria@müller-gmbh.de', 'duplicate'],
    ]);
    expect(preview.rows[0].request).toEqual({ email: 'maria@xn--mller-gmbh-9db.de' });
  });
});

describe('what an invalid row shows', () => {
  it('shows the cell as it was, not a dash', () => {
    const preview = buildListPreview(list('name,email\nKim,keine-adresse\nAna,\nBo,"Bo <bo@localhost>"\n'), { email: 1 }, { skipFlagged: false, creditsLeft: 5 });
    expect(preview.rows.map((row) => [row.rowNumber, row.email, row.shownEmail, row.reason])).toEqual([
      [2, null, 'keine-adresse', 'no @ in "keine-adresse"'],
      [3, null, '', 'no e-mail address'],
      [4, null, 'Bo <bo@localhost>', 'the domain "localhost" has no ending such as .com'],
    ]);
  });

  it('cuts a 1 MB cell everywhere the page shows it: the e-mail, the reason, the examples, the headers', () => {
    const huge = 'x'.repeat(MEGABYTE);
    // Built as the parser leaves it (parsing megabytes is not what is tested here).
    const parsed: ParsedList = {
      headers: ['Name', 'E-mail', 'Note', huge],
      rows: [['Kim', huge, huge, ''], ['Ana', `ana@${huge}`, huge, ''], ['Bo', 'bo@acme.com', huge, '']],
      firstRowNumber: 2,
    };
    const preview = buildListPreview(parsed, { email: 1 }, { skipFlagged: false, creditsLeft: 5 });
    for (const row of preview.rows) {
      expect(row.shownEmail.length).toBeLessThanOrEqual(SHOWN_TEXT_CHARS);
      expect((row.reason ?? '').length).toBeLessThan(SHOWN_TEXT_CHARS + 60);
      expect(JSON.stringify(row.request ?? {}).length).toBeLessThan(600);
    }
    expect(preview.rows.map((row) => row.verdict)).toEqual(['invalid', 'invalid', 'valid']);
    expect(preview.rows[1].reason).toMatch(/^the domain "x{59}…" has no ending such as \.com$/);

    const row: ListRow = {
      id: 'lst_000000000000000000000000', account_id: 1, api_key_id: null, product_id: null, name: 'Huge', status: 'draft',
      headers: parsed.headers, cells: parsed.rows, first_row_number: parsed.firstRowNumber, mapping: { prospect_name: 0 }, skip_flagged: false,
      to_run: 0, stopped_reason: null, created_at: new Date(), started_at: null, workflow_started_at: null, finished_at: null,
    };
    const reply = draftReply(row, 5);
    expect(reply.sampleRows.flat().every((cell) => cell.length <= SHOWN_TEXT_CHARS)).toBe(true);
    expect(reply.sampleRows[0]).toEqual(['Kim', shortText(huge), shortText(huge), '']);
    // No e-mail column chosen: the message names the columns, each cut.
    expect(reply.mappingError!.length).toBeLessThan(400);
    expect(mappingError({ headers: [huge, 'Name'], rows: [['Kim', 'Ana']], firstRowNumber: 2 }, {})!.message).toMatch(/^No column is chosen as the e-mail column, and none of the columns \("x{59}…", "Name"\)/);
  });

  it('names at most ten columns of a wide file', () => {
    const headers = Array.from({ length: 500 }, (_, index) => `Field ${index + 1}`);
    const message = mappingError(list(`${headers.join(',')}\n${headers.map(() => 'a').join(',')}\n`), {})!.message;
    expect(message).toContain('"Field 10" and 490 more) looks like one');
    expect(message).not.toContain('Field 11"');
  });
});
