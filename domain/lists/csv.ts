import { parse } from 'csv-parse/browser/esm/sync';
import { LIST_MAX_BYTES, LIST_MAX_ROWS, formatCount, isBlankRow, type ListFileError, type ListFileErrorCode, type ListParse, type ParsedList } from './fields.ts';

// An uploaded list (docs/lists.md#using-it): a CSV in
// UTF-8 with or without BOM, comma or semicolon separated, at most 2 MiB and
// 1,000 data rows; or addresses pasted one per line. Parsed with csv-parse's
// browser build, which carries its own Buffer, so this file has no Node-only
// import and the dashboard may use it too.

export * from './fields.ts';
export { guessColumnMapping } from './columns.ts';
export { buildListPreview, mappingError } from './preview.ts';

const fail = (code: ListFileErrorCode, message: string): { ok: false; error: ListFileError } => ({ ok: false, error: { code, message } });
const SAVE_AS_CSV = 'In Excel or LibreOffice, use Save As → "CSV UTF-8 (comma delimited)" and upload that file.';
const EMPTY = 'The file is empty. Upload a CSV with a header row and one prospect per row.';

// Signatures of files people pick by mistake instead of the CSV export.
const SIGNATURES: { bytes: number[]; what: string }[] = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'an Excel or LibreOffice workbook (.xlsx, .ods) or another ZIP archive' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: 'an old Excel workbook (.xls)' },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document' },
];

/**
 * The file's bytes as text, or why they are not a UTF-8 text file. A
 * Windows-1252 export (Excel's plain "CSV") or a file pasted together from
 * two encodings fails the strict decoder; the message names the first line
 * that is not UTF-8.
 */
export function decodeListFile(bytes: Uint8Array): { ok: true; text: string } | { ok: false; error: ListFileError } {
  if (bytes.byteLength > LIST_MAX_BYTES) {
    return fail('too_large', `The file is ${formatMiB(bytes.byteLength)}; a list can be at most 2 MiB. Split it into smaller files.`);
  }
  if (bytes.byteLength === 0) return fail('empty_file', EMPTY);
  const signature = SIGNATURES.find((known) => known.bytes.every((byte, index) => bytes[index] === byte));
  if (signature) return fail('binary_file', `This file is ${signature.what}, not a CSV. ${SAVE_AS_CSV}`);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return fail('mixed_encoding', `This file is saved as UTF-16 ("Unicode text"), not UTF-8. ${SAVE_AS_CSV}`);
  }
  if (bytes.includes(0)) return fail('binary_file', `This file holds binary data, not text. ${SAVE_AS_CSV}`);
  try {
    // fatal: refuse invalid UTF-8 rather than turn it into U+FFFD; a leading BOM is dropped.
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    const line = firstInvalidUtf8Line(bytes);
    return fail(
      'mixed_encoding',
      `Line ${line} of the file is not UTF-8 text (perhaps saved as Windows-1252, or put together from files in two encodings). ${SAVE_AS_CSV}`,
    );
  }
}

/** Decodes and parses an uploaded file in one step. */
export function readListFile(bytes: Uint8Array): ListParse {
  const decoded = decodeListFile(bytes);
  return decoded.ok ? parseListText(decoded.text) : decoded;
}

/**
 * Parses CSV text: separator detected (or named by Excel's `sep=;` line),
 * quoted fields, the row limit applied. Blank rows inside the list stay as
 * empty rows, so every row keeps the number a spreadsheet shows for it; they
 * count towards no limit and the preview skips them (`isBlankRow`).
 */
export function parseListText(text: string): ListParse {
  let body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return fail('empty_file', EMPTY);
  if (/[\u0000-\u0008\u000e-\u0019]/.test(body)) return fail('binary_file', `This file holds binary data, not text. ${SAVE_AS_CSV}`);
  const sepLine = /^sep=([,;\t])\r?\n/i.exec(body);
  if (sepLine) body = body.slice(sepLine[0].length);
  const delimiter = sepLine ? (sepLine[1] as ',' | ';' | '\t') : detectDelimiter(body);
  let records: string[][];
  try {
    records = parse(body, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false }) as string[][];
  } catch (caught) {
    const line = (caught as { lines?: unknown }).lines;
    const where = typeof line === 'number' ? ` (line ${line + (sepLine ? 1 : 0)})` : '';
    return fail('not_csv', `The file could not be read as a CSV${where}: ${describeCsvError(caught)}. ${SAVE_AS_CSV}`);
  }
  return listFrom(records, sepLine ? 1 : 0);
}

/** Addresses pasted into the page, one per line, no header. Blank lines are dropped. */
export function parsePastedAddresses(text: string): ListParse {
  const rows = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => [line]);
  if (rows.length === 0) return fail('empty_file', 'Paste at least one e-mail address, one per line.');
  if (rows.length > LIST_MAX_ROWS) return tooManyRows(rows.length);
  return { ok: true, list: { headers: ['email'], rows, firstRowNumber: 1 } };
}

/** `skippedLines`: lines above the records (a `sep=` line), which a spreadsheet shows as rows too. */
function listFrom(records: string[][], skippedLines: number): ListParse {
  const first = records.findIndex((record) => !isBlankRow(record));
  if (first < 0) return fail('empty_file', EMPTY);
  let end = records.length;
  while (end > first && isBlankRow(records[end - 1])) end -= 1;
  // A first row that holds an address is data, not a header (a bare column of addresses).
  const hasHeaderRow = !records[first].some((cell) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(cell.trim()));
  const data = records.slice(hasHeaderRow ? first + 1 : first, end);
  const width = Math.max(...records.slice(first, end).map((record) => record.length));
  const headers = Array.from({ length: width }, (_, index) => (hasHeaderRow && records[first][index]?.trim()) || `Column ${index + 1}`);
  const filled = data.filter((record) => !isBlankRow(record)).length;
  if (filled === 0) return fail('empty_file', 'The file has a header row but no prospects below it.');
  if (filled > LIST_MAX_ROWS) return tooManyRows(filled);
  const rows = data.map((record) => headers.map((_, index) => (record[index] ?? '').trim()));
  const list: ParsedList = { headers, rows, firstRowNumber: skippedLines + first + (hasHeaderRow ? 2 : 1) };
  return { ok: true, list };
}

function tooManyRows(count: number): ListParse {
  return fail('too_many_rows', `The list has ${formatCount(count)} rows; a list can have at most ${formatCount(LIST_MAX_ROWS)}. Split it into several lists.`);
}

/**
 * Comma, semicolon (Excel's CSV where the decimal mark is a comma) or tab: the
 * one that splits the first rows into the same, largest number of columns.
 */
function detectDelimiter(body: string): ',' | ';' | '\t' {
  let best: { delimiter: ',' | ';' | '\t'; score: number } = { delimiter: ',', score: 0 };
  for (const delimiter of [',', ';', '\t'] as const) {
    let sample: string[][];
    try {
      sample = parse(body, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, to_line: 50 }) as string[][];
    } catch {
      continue;
    }
    if (sample.length === 0) continue;
    const width = sample[0].length;
    const agreeing = sample.filter((record) => record.length === width).length / sample.length;
    const score = width > 1 ? width * agreeing : 0;
    if (score > best.score) best = { delimiter, score };
  }
  return best.delimiter;
}

function describeCsvError(caught: unknown): string {
  const code = (caught as { code?: string }).code;
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'a field opens a quote (") that is never closed';
  if (code === 'CSV_INVALID_CLOSING_QUOTE' || code === 'INVALID_OPENING_QUOTE') return 'a quote (") stands where a field should end';
  return 'its structure is not valid CSV';
}

function firstInvalidUtf8Line(bytes: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let index = 0; index <= bytes.length; index += 1) {
    if (index < bytes.length && bytes[index] !== 0x0a) continue;
    try {
      decoder.decode(bytes.subarray(start, index));
    } catch {
      return line;
    }
    line += 1;
    start = index + 1;
  }
  return line;
}

function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
