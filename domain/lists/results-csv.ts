import { stringify } from 'csv-stringify/browser/esm/sync';
import type { Language } from '../research/languages.ts';

// A list's results as a spreadsheet: one row per input row, the
// input's columns first, then the research flattened into columns a person
// reads. Written by csv-stringify with what Excel and LibreOffice need in every
// one of the eight languages: a UTF-8 BOM (Excel otherwise reads Windows-1252),
// CRLF between records, every cell quoted (an empty one as `""`), line breaks
// inside cells as LF, and the separator Excel expects in the account's language.

/** A row's state in a list run (domain/lists/lists.ts `ListRowStatus`, mirrored so this file stands alone). */
export type ListResultStatus = 'skipped' | 'pending' | 'running' | 'completed' | 'failed' | 'not_charged';

export interface ListResultRow {
  /** The input row's cells, in the order of `headers`. */
  cells: string[];
  status: ListResultStatus;
  /** Failure or skip reason as a sentence. */
  error: string | null;
  /** The job's status reply exactly as GET /research-status returns it (parsed JSON); null if no job. */
  reply: Record<string, unknown> | null;
}

export const RESULT_COLUMNS = [
  'Status',
  'Note',
  'Research ID',
  'Name',
  'Title',
  'Company',
  'Industry',
  'Employees',
  'Summary',
  'Opening talk 1',
  'Opening talk 2',
  'Opening talk 3',
  'Synergy points',
  'Discovery questions',
  'Decision makers',
] as const;

const STATUS_WORDS: Record<ListResultStatus, string> = {
  completed: 'Completed',
  failed: 'Failed (not charged)',
  skipped: 'Skipped',
  not_charged: 'Not run (not charged)',
  pending: 'Waiting',
  running: 'Running',
};

const FAILURE_WORDS: Record<string, string> = {
  timeout: 'The research took longer than 3 minutes and was stopped; the credit was refunded.',
  internal_error: 'The research failed on our side; the credit was refunded.',
};

/**
 * Excel splits a CSV at the list separator of the computer's region: a comma
 * where the decimal mark is a point (English), a semicolon where it is a
 * comma (the other seven languages' usual regions). LibreOffice asks.
 */
export function csvDelimiterFor(language: Language): ',' | ';' {
  return language === 'en' ? ',' : ';';
}

/** The whole CSV text, BOM included, every cell escaped against CSV injection (OWASP) by the stringifier. */
export function formatListResultsCsv(input: { headers: string[]; rows: ListResultRow[]; delimiter?: ',' | ';' }): string {
  const taken = new Set(input.headers.map((header) => header.trim().toLowerCase()));
  const researchHeaders = RESULT_COLUMNS.map((column) => (taken.has(column.toLowerCase()) ? `${column} (research)` : column));
  const records = input.rows.map((row) => [...input.headers.map((_, index) => row.cells[index] ?? ''), ...researchCells(row)].map(cellText));
  return stringify([[...input.headers, ...researchHeaders].map(cellText), ...records], {
    bom: true,
    delimiter: input.delimiter ?? ',',
    record_delimiter: 'windows',
    quoted: true,
    quoted_empty: true,
    // OWASP CSV injection: a cell starting with = + - @ tab or CR (or their full-width forms) gets a leading '.
    escape_formulas: true,
  });
}

function researchCells(row: ListResultRow): string[] {
  const reply = row.reply ?? {};
  const researchId = text(reply.research_id);
  const note = row.error ?? (reply.status === 'failed' ? (FAILURE_WORDS[text(reply.error)] ?? text(reply.error)) : '');
  const data = reply.status === 'completed' ? record(reply.data) : {};
  const prospect = record(data.prospect);
  const company = record(data.company);
  const talk = list(prospect.opening_talk);
  const decisionMakers = Array.isArray(data.decision_makers) ? data.decision_makers.map(record) : [];
  return [
    STATUS_WORDS[row.status] ?? row.status,
    note,
    researchId,
    text(prospect.name),
    text(prospect.title),
    text(company.name) || text(prospect.company),
    text(company.industry),
    text(company.employees),
    text(prospect.summary),
    talk[0] ?? '',
    talk[1] ?? '',
    talk[2] ?? '',
    list(company.synergy_points).join('\n'),
    list(company.discovery_questions).join('\n'),
    decisionMakers.map(decisionMaker).join('\n'),
  ];
}

/** "Jane Roe — Chief Revenue Officer (https://…)": one decision maker per line. */
function decisionMaker(person: Record<string, unknown>): string {
  const who = [text(person.full_name), text(person.position_title)].filter(Boolean).join(' — ');
  const url = text(person.social_url);
  return url ? `${who} (${url})` : who;
}

/** Cells hold LF line breaks only (what Excel writes for Alt+Enter); other control characters go. */
function cellText(value: string): string {
  return value.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}

const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(text).filter(Boolean) : []);
