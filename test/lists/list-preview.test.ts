import { describe, expect, it } from 'vitest';
import { buildListPreview, guessColumnMapping, mappingError, parseListText, type ParsedList } from '../../domain/lists/csv.ts';
import { checkAddress, costMessage } from '../../domain/lists/preview.ts';

function list(text: string): ParsedList {
  const result = parseListText(text);
  if (!result.ok) throw new Error(result.error.message);
  return result.list;
}

const SAMPLE = [
  'Name;E-Mail;Firma;LinkedIn',
  'Jürgen Groß;Jurgen@Acme-Industrie.de;Acme Industrie GmbH;https://www.linkedin.com/in/jgross',
  'Anna Weber;anna.weber@gmail.com;;',
  'Vertrieb;sales@acme-industrie.de;Acme Industrie GmbH;',
  'Jürgen again; jurgen@acme-industrie.de ;;',
  'Kein Konto;keine-adresse;;',
  'Leer;;;',
  'Max Muster;max@müller-bau.de;Müller Bau;',
  'Two;a@acme.de, b@acme.de;;',
].join('\n');

describe('the preview of a list', () => {
  const parsed = list(SAMPLE);
  const mapping = guessColumnMapping(parsed.headers, parsed.rows);

  it('counts valid, invalid, duplicate and flagged rows and what the run would cost', () => {
    expect(mapping).toEqual({ prospect_name: 0, email: 1, company_name: 2, social_url: 3 });
    const preview = buildListPreview(parsed, mapping, { skipFlagged: false, creditsLeft: 180 });
    expect(preview).toMatchObject({
      totalRows: 8,
      valid: 4,
      invalid: 3,
      duplicates: 1,
      freeMail: 1,
      roleBased: 1,
      skippedFlagged: 0,
      toResearch: 4,
      willRun: 4,
      creditsLeft: 180,
      isCutByCredits: false,
      costMessage: 'Uses 4 of your 180 credits left.',
    });
    expect(preview.rows.map((row) => [row.rowNumber, row.verdict, row.reason, row.willRun])).toEqual([
      [2, 'valid', null, true],
      [3, 'free_mail', null, true],
      [4, 'role_based', null, true],
      [5, 'duplicate', 'same as row 2', false],
      [6, 'invalid', 'no @ in "keine-adresse"', false],
      [7, 'invalid', 'no e-mail address', false],
      [8, 'valid', null, true],
      [9, 'invalid', 'more than one address in the cell', false],
    ]);
  });

  it('builds each row\'s research request as the API normalises it, with the mapped hints', () => {
    const preview = buildListPreview(parsed, mapping, { skipFlagged: false, creditsLeft: 180 });
    expect(preview.rows[0].request).toEqual({
      email: 'jurgen@acme-industrie.de',
      prospect_name: 'Jürgen Groß',
      company_name: 'Acme Industrie GmbH',
      social_url: 'https://www.linkedin.com/in/jgross',
    });
    expect(preview.rows[1].request).toEqual({ email: 'anna.weber@gmail.com', prospect_name: 'Anna Weber' });
    // The domain in its ASCII form, as the API stores it.
    expect(preview.rows[6].email).toBe('max@xn--mller-bau-q9a.de');
    expect(preview.rows[4].request).toBeNull();
  });

  it('leaves flagged rows out with the switch on', () => {
    const preview = buildListPreview(parsed, mapping, { skipFlagged: true, creditsLeft: 180 });
    expect(preview).toMatchObject({ skippedFlagged: 2, toResearch: 2, willRun: 2, costMessage: 'Uses 2 of your 180 credits left.' });
    expect(preview.rows.filter((row) => row.willRun).map((row) => row.rowNumber)).toEqual([2, 8]);
  });

  it('runs the first rows that fit when the credits do not cover the list, and says so', () => {
    const preview = buildListPreview(parsed, mapping, { skipFlagged: false, creditsLeft: 3 });
    expect(preview).toMatchObject({ toResearch: 4, willRun: 3, isCutByCredits: true });
    expect(preview.costMessage).toBe('Only the first 3 of 4 rows fit your 3 credits left: those run, and the other 1 is not started and not charged.');
    expect(preview.rows.filter((row) => row.willRun).map((row) => row.rowNumber)).toEqual([2, 3, 4]);
    const none = buildListPreview(parsed, mapping, { skipFlagged: false, creditsLeft: 0 });
    expect(none).toMatchObject({ willRun: 0, isCutByCredits: true });
    expect(none.costMessage).toMatch(/^You have no credits left in this billing cycle, so none of the 4 rows can run/);
  });

  it('says the cost in the issue\'s words', () => {
    expect(costMessage(137, 180)).toBe('Uses 137 of your 180 credits left.');
    expect(costMessage(1, 1)).toBe('Uses 1 of your 1 credit left.');
    expect(costMessage(1_000, 600)).toBe('Only the first 600 of 1,000 rows fit your 600 credits left: those run, and the other 400 are not started and not charged.');
    expect(costMessage(0, 50)).toBe('No row would be researched, so nothing is charged.');
  });

  it('skips a blank line inside the list (no row, not invalid), the rows after it keeping their spreadsheet numbers', () => {
    const preview = buildListPreview(list('email,name\nana@acme.es,Ana\n,\n\nbob@acme.es,Bob\nnope,Nope\n'), { email: 0, prospect_name: 1 }, { skipFlagged: false, creditsLeft: 5 });
    expect(preview).toMatchObject({ totalRows: 3, valid: 2, invalid: 1, toResearch: 2 });
    expect(preview.rows.map((row) => [row.rowNumber, row.verdict, row.reason])).toEqual([
      [2, 'valid', null],
      [5, 'valid', null],
      [6, 'invalid', 'no @ in "nope"'],
    ]);
  });

  it('joins first and last name into one name hint', () => {
    const parsedList = list('First Name,Last Name,Email\nAna,López,ana@acme.es\n,Kim,kim@acme.es\n');
    const preview = buildListPreview(parsedList, guessColumnMapping(parsedList.headers), { skipFlagged: false, creditsLeft: 5 });
    expect(preview.rows.map((row) => row.request)).toEqual([
      { email: 'ana@acme.es', prospect_name: 'Ana López' },
      { email: 'kim@acme.es', prospect_name: 'Kim' },
    ]);
  });

  it('turns line breaks inside a hint into spaces and leaves out a hint the API would refuse', () => {
    const parsedList = list(`email,name,company\nana@acme.es,"Ana\nLópez",${'x'.repeat(501)}\n`);
    const preview = buildListPreview(parsedList, { email: 0, prospect_name: 1, company_name: 2 }, { skipFlagged: false, creditsLeft: 5 });
    expect(preview.rows[0].request).toEqual({ email: 'ana@acme.es', prospect_name: 'Ana López' });
  });
});

describe('bad lists', () => {
  it('says which columns it found when none holds addresses', () => {
    const parsed = list('Name,Company\nAna,Acme\n');
    const mapping = guessColumnMapping(parsed.headers, parsed.rows);
    expect(mapping.email).toBeUndefined();
    expect(mappingError(parsed, mapping)).toEqual({
      code: 'no_email_column',
      message: expect.stringContaining('none of the columns ("Name", "Company") looks like one'),
    });
    expect(mappingError(parsed, { email: 5 })?.code).toBe('no_email_column');
    expect(mappingError(parsed, { email: 1 })).toBeNull();
  });

  it('points at the column that looks like the addresses when none is chosen', () => {
    const parsed = list('Name,E-Mail\nAna,ana@acme.es\n');
    expect(mappingError(parsed, { prospect_name: 0 })).toEqual({
      code: 'no_email_column',
      message: 'No column is chosen as the e-mail column. "E-Mail" looks like it holds the addresses: choose E-mail for it.',
    });
  });

  it('previews 1,000 invalid rows with a reason each and nothing to charge', () => {
    const parsed = list(['email', ...Array.from({ length: 1000 }, (_, index) => `person${index}.acme.com`)].join('\n'));
    const preview = buildListPreview(parsed, { email: 0 }, { skipFlagged: false, creditsLeft: 200 });
    expect(preview).toMatchObject({ totalRows: 1000, valid: 0, invalid: 1000, toResearch: 0, willRun: 0, isCutByCredits: false });
    expect(preview.costMessage).toBe('No row would be researched, so nothing is charged.');
    expect(preview.rows[999]).toEqual({
      rowNumber: 1001, email: null, shownEmail: 'person999.acme.com', request: null, verdict: 'invalid', reason: 'no @ in "person999.acme.com"', willRun: false,
    });
  });

  it('gives the reason an address fails', () => {
    expect(checkAddress('  Anna <Anna@Acme.com> ')).toEqual({ email: 'anna@acme.com' });
    expect(checkAddress('mailto:kim@acme.com')).toEqual({ email: 'kim@acme.com' });
    expect(checkAddress('@acme.com')).toEqual({ reason: 'nothing before the @ in "@acme.com"' });
    expect(checkAddress('kim@')).toEqual({ reason: 'nothing after the @ in "kim@"' });
    expect(checkAddress('kim@localhost')).toEqual({ reason: 'the domain "localhost" has no ending such as .com' });
    expect(checkAddress('kim lee@acme.com')).toEqual({ reason: 'a space inside "kim lee@acme.com"' });
    expect(checkAddress('kim@[127.0.0.1]')).toEqual({ reason: '"kim@[127.0.0.1]" is not a valid e-mail address' });
  });
});
