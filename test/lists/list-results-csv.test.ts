import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, type Language } from '../../domain/research/languages.ts';
import { csvDelimiterFor, formatListResultsCsv, RESULT_COLUMNS, type ListResultRow } from '../../domain/lists/results-csv.ts';

// Text in each output language, with the characters Excel mangles when it
// guesses the wrong encoding (ł, ß, é, ñ, ã, ë…).
const SAMPLES: Record<Language, { summary: string; talk: string }> = {
  en: { summary: 'Leads revenue operations — “pipeline” first.', talk: 'Saw your post on renewals.' },
  pl: { summary: 'Kieruje sprzedażą w Łodzi; źródło: żółć.', talk: 'Gratuluję nowej roli, Paweł!' },
  de: { summary: 'Leitet den Vertrieb in Düsseldorf, Straße 5.', talk: 'Glückwunsch zur Übernahme!' },
  fr: { summary: 'Dirige les ventes à Besançon ; « élan » garanti.', talk: 'Félicitations pour la levée de fonds.' },
  es: { summary: 'Dirige ventas en A Coruña; ¿por qué no?', talk: '¡Enhorabuena por la expansión!' },
  it: { summary: 'Guida le vendite a Forlì, più crescita.', talk: 'Complimenti per il nuovo ruolo, è fantastico.' },
  pt: { summary: 'Lidera vendas em São Paulo, ação rápida.', talk: 'Parabéns pela expansão à região.' },
  nl: { summary: 'Leidt verkoop in Zoë’s team, coöperatie.', talk: 'Gefeliciteerd met de overname, geëerd!' },
};

function completedReply(language: Language): Record<string, unknown> {
  const { summary, talk } = SAMPLES[language];
  return {
    research_id: `res_${language}`,
    status: 'completed',
    completed_at: '2026-11-25T01:00:00+00:00',
    data: {
      prospect: { id: 1, name: 'Zoë Ångström', title: 'VP Sales', company: 'Acme', email: 'zoe@acme.com', summary, opening_talk: [talk, `${talk} 2`, `${talk} 3`] },
      company: {
        id: 2,
        name: 'Acme Łódź S.A.',
        industry: 'Software',
        employees: '51-200',
        synergy_points: ['Point one', '=HYPERLINK("http://evil.example","click")'],
        discovery_questions: ['Q1?', 'Q2?', 'Q3?'],
      },
      decision_makers: [
        { id: 3, full_name: 'José Núñez', position_title: 'CEO', social_url: 'https://www.linkedin.com/in/jnunez', company_name: 'Acme' },
        { id: 4, full_name: 'Kim Lee', position_title: 'CFO', social_url: '', company_name: 'Acme' },
      ],
    },
  };
}

function readBack(csv: string, delimiter = ',') {
  return parse(csv, { bom: true, delimiter, relax_column_count: false }) as string[][];
}

describe('the results CSV', () => {
  const headers = ['Name', 'E-mail', 'Note from sales'];
  const rows: ListResultRow[] = [
    { cells: ['Zoë', 'zoe@acme.com', '=cmd|\' /C calc\'!A0'], status: 'completed', error: null, reply: completedReply('pl') },
    { cells: ['+49 30 1234', 'kim@acme.com', '@SUM(1+1)'], status: 'failed', error: null, reply: { research_id: 'res_2', status: 'failed', error: 'timeout' } },
    { cells: ['-2+3', 'not-an-address', '\tTabbed'], status: 'skipped', error: 'no @ in "not-an-address"', reply: null },
    { cells: ['Row with\r\nbreak', 'late@acme.com', ''], status: 'not_charged', error: 'The list was cancelled before this row started.', reply: null },
  ];
  const csv = formatListResultsCsv({ headers, rows });

  it('starts with a UTF-8 BOM, separates records with CRLF and quotes every cell', () => {
    expect(csv.startsWith('\uFEFF"Name","E-mail","Note from sales","Status","Note"')).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.split('\r\n')).toHaveLength(2 + rows.length);
  });

  it('quotes an empty cell too, as the README says: "" between the separators, never nothing', () => {
    for (const delimiter of [',', ';'] as const) {
      const records = formatListResultsCsv({ headers, rows, delimiter }).replace(/^\uFEFF/, '').split('\r\n').slice(0, -1);
      // Every field a quoted string ("" inside it for a quote), a separator between them, nothing else.
      const quotedOnly = new RegExp(`^"(?:[^"]|"")*"(?:${delimiter}"(?:[^"]|"")*")*$`);
      for (const record of records) expect(record).toMatch(quotedOnly);
      expect(records[4]).toContain(`"late@acme.com"${delimiter}""${delimiter}"Not run (not charged)"`);
    }
  });

  it('reads back cell by cell: input columns first, then the research flattened', () => {
    const [header, completed, failed, skipped, cancelled] = readBack(csv);
    expect(header).toEqual([...headers, 'Status', 'Note', 'Research ID', 'Name (research)', ...RESULT_COLUMNS.slice(4)]);
    expect(completed).toEqual([
      'Zoë',
      'zoe@acme.com',
      "'=cmd|' /C calc'!A0",
      'Completed',
      '',
      'res_pl',
      'Zoë Ångström',
      'VP Sales',
      'Acme Łódź S.A.',
      'Software',
      '51-200',
      SAMPLES.pl.summary,
      SAMPLES.pl.talk,
      `${SAMPLES.pl.talk} 2`,
      `${SAMPLES.pl.talk} 3`,
      'Point one\n=HYPERLINK("http://evil.example","click")',
      'Q1?\nQ2?\nQ3?',
      'José Núñez — CEO (https://www.linkedin.com/in/jnunez)\nKim Lee — CFO',
    ]);
    expect(failed.slice(0, 6)).toEqual(["'+49 30 1234", 'kim@acme.com', "'@SUM(1+1)", 'Failed (not charged)', expect.stringMatching(/longer than 3 minutes/), 'res_2']);
    expect(failed.slice(6).every((cell) => cell === '')).toBe(true);
    expect(skipped.slice(0, 6)).toEqual(["'-2+3", 'not-an-address', "'\tTabbed", 'Skipped', 'no @ in "not-an-address"', '']);
    expect(cancelled.slice(0, 5)).toEqual(['Row with\nbreak', 'late@acme.com', '', 'Not run (not charged)', 'The list was cancelled before this row started.']);
  });

  it('escapes every formula-looking cell the research writes too (OWASP CSV injection)', () => {
    const hostile = completedReply('en');
    const data = hostile.data as { prospect: Record<string, unknown>; company: Record<string, unknown> };
    data.prospect.name = '=1+2';
    data.prospect.title = '+cmd';
    data.prospect.summary = '-sum';
    data.company.industry = '@evil';
    data.company.employees = '\t=tab';
    data.company.name = '＝fullwidth';
    const [, row] = readBack(formatListResultsCsv({ headers: ['email'], rows: [{ cells: ['a@acme.com'], status: 'completed', error: null, reply: hostile }] }));
    expect(row.slice(4, 10)).toEqual(["'=1+2", "'+cmd", "'＝fullwidth", "'@evil", "'\t=tab", "'-sum"]);
    for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r＝＋－＠]/);
  });

  it.each(LANGUAGES)('keeps %s text intact, with the separator Excel expects in that language', (language) => {
    const delimiter = csvDelimiterFor(language);
    const out = formatListResultsCsv({ headers: ['email'], rows: [{ cells: ['zoe@acme.com'], status: 'completed', error: null, reply: completedReply(language) }], delimiter });
    const bytes = new TextEncoder().encode(out);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [, row] = readBack(new TextDecoder().decode(bytes), delimiter);
    expect(row[9]).toBe(SAMPLES[language].summary);
    expect(row.slice(10, 13)).toEqual([SAMPLES[language].talk, `${SAMPLES[language].talk} 2`, `${SAMPLES[language].talk} 3`]);
    expect(row[6]).toBe('Acme Łódź S.A.');
    expect(delimiter).toBe(language === 'en' ? ',' : ';');
  });

  it('writes a header-only file for a list without rows', () => {
    expect(readBack(formatListResultsCsv({ headers: ['email'], rows: [] }))).toEqual([['email', ...RESULT_COLUMNS]]);
  });
});
