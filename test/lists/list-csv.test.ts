import { describe, expect, it } from 'vitest';
import { guessColumnMapping, LIST_MAX_BYTES, parseListText, parsePastedAddresses, readListFile, type ListParse } from '../../domain/lists/csv.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const BOM = [0xef, 0xbb, 0xbf];

function parsed(result: ListParse) {
  if (!result.ok) throw new Error(`expected a list, got ${result.error.code}: ${result.error.message}`);
  return result.list;
}
function refused(result: ListParse) {
  if (result.ok) throw new Error('expected an error');
  return result.error;
}

describe('reading an uploaded list', () => {
  it('reads UTF-8 with and without a BOM to the same list, accents intact', () => {
    const text = 'Name,E-Mail\r\nJürgen Groß,jurgen@acme.de\r\n';
    const withBom = parsed(readListFile(new Uint8Array([...BOM, ...utf8(text)])));
    const without = parsed(readListFile(utf8(text)));
    expect(withBom).toEqual(without);
    expect(withBom).toEqual({ headers: ['Name', 'E-Mail'], rows: [['Jürgen Groß', 'jurgen@acme.de']], firstRowNumber: 2 });
  });

  it('detects comma, semicolon and tab separators and keeps quoted separators, quotes and line breaks inside a field', () => {
    const comma = parsed(parseListText('email,company\n"ana@acme.es","Acme, S.L."\n'));
    expect(comma.rows).toEqual([['ana@acme.es', 'Acme, S.L.']]);
    const semicolon = parsed(parseListText('E-Mail;Firma;Notiz\njan@beispiel.de;"Beispiel; GmbH";"sagt ""hallo""\nzweite Zeile"\n'));
    expect(semicolon.headers).toEqual(['E-Mail', 'Firma', 'Notiz']);
    expect(semicolon.rows).toEqual([['jan@beispiel.de', 'Beispiel; GmbH', 'sagt "hallo"\nzweite Zeile']]);
    const tab = parsed(parseListText('email\tname\nkim@acme.com\tKim\n'));
    expect(tab.rows).toEqual([['kim@acme.com', 'Kim']]);
  });

  it('takes a bare column of addresses without a header as data from row 1', () => {
    const list = parsed(parseListText('ana@acme.es\nbob@acme.es\n'));
    expect(list).toEqual({ headers: ['Column 1'], rows: [['ana@acme.es'], ['bob@acme.es']], firstRowNumber: 1 });
  });

  it('keeps blank rows inside the list so row numbers match the spreadsheet, drops them around it, pads short rows and trims cells', () => {
    const list = parsed(parseListText('\n\nemail,name,company\n  ana@acme.es , Ana \n\n,,\nbob@acme.es\n,,\n\n'));
    // Lines 1–2 blank, the header on row 3: Ana is row 4, Bob row 7.
    expect(list.firstRowNumber).toBe(4);
    expect(list.rows).toEqual([['ana@acme.es', 'Ana', ''], ['', '', ''], ['', '', ''], ['bob@acme.es', '', '']]);
  });

  it('counts a multi-line quoted cell as one row, as a spreadsheet does', () => {
    const list = parsed(parseListText('email,note\nana@acme.es,"line one\nline two"\nbob@acme.es,x\n'));
    expect(list.rows.map((row) => row[0])).toEqual(['ana@acme.es', 'bob@acme.es']);
  });

  it("follows Excel's sep= line", () => {
    const list = parsed(parseListText('sep=;\r\nName;E-Mail\r\n"Weber, Anna";anna@acme.de\r\n'));
    expect(list).toEqual({ headers: ['Name', 'E-Mail'], rows: [['Weber, Anna', 'anna@acme.de']], firstRowNumber: 3 });
  });

  it('reads pasted addresses one per line, without a header', () => {
    expect(parsed(parsePastedAddresses('\uFEFFana@acme.es\r\n\r\n  bob@acme.es  \nnot an address\n'))).toEqual({
      headers: ['email'],
      rows: [['ana@acme.es'], ['bob@acme.es'], ['not an address']],
      firstRowNumber: 1,
    });
    expect(refused(parsePastedAddresses(' \n\n')).code).toBe('empty_file');
  });
});

describe('refusing what is not a list', () => {
  it('refuses an empty file, a BOM alone, blank lines and a header without rows', () => {
    for (const bytes of [new Uint8Array(0), new Uint8Array(BOM), utf8('\n\r\n  \n'), utf8('email,name\n')]) {
      const error = refused(readListFile(bytes));
      expect(error.code).toBe('empty_file');
      expect(error.message).toMatch(/empty|no prospects/);
    }
  });

  it('refuses a file over 2 MiB before reading it', () => {
    const bytes = new Uint8Array(LIST_MAX_BYTES + 1).fill(0x61);
    expect(refused(readListFile(bytes))).toEqual({ code: 'too_large', message: expect.stringMatching(/2\.0 MiB; a list can be at most 2 MiB/) });
  });

  it('refuses more than 1,000 data rows, and takes exactly 1,000', () => {
    const rows = (count: number) => ['email', ...Array.from({ length: count }, (_, index) => `p${index}@acme.com`)].join('\n');
    expect(parsed(parseListText(rows(1000))).rows).toHaveLength(1000);
    const error = refused(parseListText(rows(1001)));
    expect(error.code).toBe('too_many_rows');
    expect(error.message).toContain('1,001 rows; a list can have at most 1,000');
    expect(refused(parsePastedAddresses(Array.from({ length: 1001 }, (_, index) => `p${index}@acme.com`).join('\n'))).code).toBe('too_many_rows');
  });

  it('refuses binary files, naming a workbook or PDF picked by mistake', () => {
    const xlsx = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]);
    expect(refused(readListFile(xlsx))).toEqual({ code: 'binary_file', message: expect.stringContaining('Excel or LibreOffice workbook') });
    expect(refused(readListFile(utf8('%PDF-1.7\n…'))).message).toContain('PDF');
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
    expect(refused(readListFile(png)).code).toBe('binary_file');
    expect(refused(parseListText('email\n\u0001\u0002\u0003')).code).toBe('binary_file');
  });

  it('refuses Windows-1252 and mixed encodings with the line, and UTF-16', () => {
    // "Müller" in Windows-1252 on line 3 after two UTF-8 lines.
    const mixed = new Uint8Array([...utf8('name,email\nJürgen,j@acme.de\nM'), 0xfc, ...utf8('ller,m@acme.de\n')]);
    const error = refused(readListFile(mixed));
    expect(error.code).toBe('mixed_encoding');
    expect(error.message).toMatch(/^Line 3 of the file is not UTF-8/);
    expect(error.message).toContain('CSV UTF-8');
    const utf16 = new Uint8Array([0xff, 0xfe, 0x65, 0x00, 0x6d, 0x00]);
    expect(refused(readListFile(utf16))).toEqual({ code: 'mixed_encoding', message: expect.stringContaining('UTF-16') });
  });

  it('refuses text that is not CSV (a quote never closed), naming the line', () => {
    const error = refused(parseListText('email,name\nana@acme.es,"Ana\nbob@acme.es,Bob\n'));
    expect(error.code).toBe('not_csv');
    expect(error.message).toMatch(/never closed/);
  });
});

describe('guessing the columns from header words', () => {
  const cases: [string, string[], Record<string, number>][] = [
    ['English', ['First name', 'Full Name', 'Email Address', 'Company Name', 'LinkedIn URL', 'Company LinkedIn URL'], { prospect_name: 1, email: 2, company_name: 3, social_url: 4, company_social_url: 5 }],
    ['German', ['Ansprechpartner', 'E-Mail', 'Firma', 'LinkedIn-Profil', 'Firmen-LinkedIn'], { prospect_name: 0, email: 1, company_name: 2, social_url: 3, company_social_url: 4 }],
    ['French', ['Nom complet', 'Courriel', 'Société', 'Profil LinkedIn', 'Page LinkedIn entreprise'], { prospect_name: 0, email: 1, company_name: 2, social_url: 3, company_social_url: 4 }],
    ['Spanish', ['Nombre', 'Correo electrónico', 'Empresa', 'Perfil de LinkedIn', 'LinkedIn de la empresa'], { prospect_name: 0, email: 1, company_name: 2, social_url: 3, company_social_url: 4 }],
    ['Italian', ['Nome e cognome', 'Indirizzo e-mail', 'Azienda', 'Profilo LinkedIn', 'LinkedIn azienda'], { prospect_name: 0, email: 1, company_name: 2, social_url: 3, company_social_url: 4 }],
    ['Portuguese', ['Nome completo', 'Endereço de e-mail', 'Empresa', 'Perfil LinkedIn', 'LinkedIn da empresa'], { prospect_name: 0, email: 1, company_name: 2, social_url: 3, company_social_url: 4 }],
    ['Dutch', ['Naam', 'E-mailadres', 'Bedrijfsnaam', 'LinkedIn-profiel', 'LinkedIn bedrijf'], { prospect_name: 0, email: 1, company_name: 2, social_url: 3, company_social_url: 4 }],
    ['Polish', ['Imię i nazwisko', 'Adres e-mail', 'Nazwa firmy', 'Profil LinkedIn', 'LinkedIn firmy'], { prospect_name: 0, email: 1, company_name: 2, social_url: 3, company_social_url: 4 }],
  ];
  it.each(cases)('%s headers', (_, headers, expected) => {
    expect(guessColumnMapping(headers)).toEqual(expected);
  });

  it('joins a first-name column and a surname column ("Nom" next to "Prénom") into the name', () => {
    expect(guessColumnMapping(['Prénom', 'Nom', 'E-mail', 'Entreprise'])).toEqual({ prospect_name: 0, prospect_last_name: 1, email: 2, company_name: 3 });
    expect(guessColumnMapping(['Vorname', 'Nachname', 'E-Mail'])).toEqual({ prospect_name: 0, prospect_last_name: 1, email: 2 });
    expect(guessColumnMapping(['Nombre', 'Apellidos', 'Correo'])).toEqual({ prospect_name: 0, prospect_last_name: 1, email: 2 });
    expect(guessColumnMapping(['Full name', 'Last name', 'Email'])).toEqual({ prospect_name: 0, email: 2 });
  });

  it("reads a prospecting tool's export (first and last name apart, e-mail status, website)", () => {
    const headers = ['First Name', 'Last Name', 'Title', 'Company', 'Company Name for Emails', 'Email', 'Email Status', 'Person Linkedin Url', 'Website', 'Company Linkedin Url'];
    expect(guessColumnMapping(headers)).toEqual({ prospect_name: 0, prospect_last_name: 1, company_name: 3, email: 5, social_url: 7, company_social_url: 9 });
  });

  it('finds the addresses and profile links by their values when no header names them', () => {
    const headers = ['Who', 'Contact', 'Link', 'Page', 'Website'];
    const rows = [
      ['Ana', 'ana@acme.es', 'https://www.linkedin.com/in/ana', 'https://www.linkedin.com/company/acme', 'https://acme.es'],
      ['Bob', 'bob@acme.es', 'https://www.linkedin.com/in/bob', 'https://www.linkedin.com/company/acme', 'https://acme.es'],
    ];
    expect(guessColumnMapping(headers, rows)).toEqual({ email: 1, social_url: 2, company_social_url: 3 });
  });

  it('leaves email unmapped when no column looks like one', () => {
    expect(guessColumnMapping(['Name', 'Company'], [['Ana', 'Acme']])).toEqual({ prospect_name: 0, company_name: 1 });
  });
});
