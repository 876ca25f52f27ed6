// What both the dashboard and the server know about an uploaded list.
// Kept apart from domain/lists/csv.ts so the dashboard can import it without the
// e-mail classification lists, which load through Node's require.

export const LIST_MAX_ROWS = 1_000;
export const LIST_MAX_BYTES = 2 * 1024 * 1024;

// `prospect_last_name` joins a surname column to `prospect_name` (then a first-name column), as most
// prospecting tools export names in two columns; the research gets one full-name hint.
export const LIST_FIELDS = ['email', 'prospect_name', 'prospect_last_name', 'company_name', 'social_url', 'company_social_url'] as const;
export type ListField = (typeof LIST_FIELDS)[number];

/** How each field reads on the page. */
export const LIST_FIELD_LABELS: Record<ListField, string> = {
  email: 'E-mail',
  prospect_name: 'Prospect name (or first name)',
  prospect_last_name: 'Last name (joined to the name)',
  company_name: 'Company name',
  social_url: 'Prospect profile URL',
  company_social_url: 'Company page URL',
};

/** field → 0-based column index; a field absent is not mapped. `email` must be mapped to start. */
export type ColumnMapping = Partial<Record<ListField, number>>;

export interface ParsedList {
  /** The file's header row, or `Column 1`… when its first row is data; pasted addresses: `['email']`. */
  headers: string[];
  /**
   * Data rows, every cell a trimmed string ('' when empty), header excluded, as wide as `headers`.
   * A blank line inside the list stays as a blank row, so row `i` is spreadsheet row
   * `firstRowNumber + i`; the preview, the run and the downloads skip it (`isBlankRow`).
   */
  rows: string[][];
  /** The first data row's number as a spreadsheet shows it: 2 under a header row, 1 without. */
  firstRowNumber: number;
}

/** A blank line of the file (every cell empty): not a row of the list. */
export const isBlankRow = (cells: string[]) => cells.every((cell) => cell.trim() === '');

export const LIST_FILE_ERRORS = ['not_csv', 'binary_file', 'too_large', 'too_many_rows', 'empty_file', 'mixed_encoding', 'no_email_column'] as const;
export type ListFileErrorCode = (typeof LIST_FILE_ERRORS)[number];

export interface ListFileError {
  code: ListFileErrorCode;
  /** A sentence for people, saying what to do. */
  message: string;
}

export type ListParse = { ok: true; list: ParsedList } | { ok: false; error: ListFileError };

export type ListRowVerdict = 'valid' | 'invalid' | 'duplicate' | 'free_mail' | 'role_based';

export interface ListRowRequest {
  email: string;
  prospect_name?: string;
  company_name?: string;
  social_url?: string;
  company_social_url?: string;
}

export interface ListPreviewRow {
  /** As a spreadsheet shows it: `firstRowNumber + index`. */
  rowNumber: number;
  /** Normalised (trimmed, lower-cased, ASCII domain) when the address is valid. */
  email: string | null;
  /**
   * The e-mail cell as the page shows it: a valid address with its domain in its
   * own letters (`maria@müller-gmbh.de`), else the cell as it was, cut to a
   * readable length ('' when empty).
   */
  shownEmail: string;
  /** The row's research request; null unless valid or flagged. */
  request: ListRowRequest | null;
  verdict: ListRowVerdict;
  /** Why invalid, or `same as row 7` for a duplicate; null otherwise. */
  reason: string | null;
  /** Would be researched if started now: valid, not skipped as flagged, within the credits left. */
  willRun: boolean;
}

export interface ListPreview {
  /** Rows of the list; blank lines are none. */
  totalRows: number;
  /** Verdict valid, free_mail or role_based. */
  valid: number;
  invalid: number;
  duplicates: number;
  freeMail: number;
  roleBased: number;
  /** Flagged rows left out because `skipFlagged`. */
  skippedFlagged: number;
  /** Rows that would be researched with unlimited credits. */
  toResearch: number;
  /** min(toResearch, creditsLeft): the cost in credits. */
  willRun: number;
  creditsLeft: number;
  isCutByCredits: boolean;
  /** "Uses 137 of your 180 credits left." or what runs when the credits do not cover the list. */
  costMessage: string;
  /** Every row of the list, in file order (blank lines left out). */
  rows: ListPreviewRow[];
}

/** The separator a person sees in `18,400` (en-US grouping, as the rest of the dashboard). */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
