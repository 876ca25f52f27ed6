import { classifyEmail } from '../research/email-classification.ts';
import { guessColumnMapping } from './columns.ts';
import { isValidEmail, normaliseEmail, shownEmail } from '../research/email-address.ts';
import { MAX_HINT_LENGTH } from '../research/request.ts';
import { shortText } from '../shown-text.ts';
import {
  LIST_FIELDS,
  formatCount,
  isBlankRow,
  type ColumnMapping,
  type ListFileError,
  type ListPreview,
  type ListPreviewRow,
  type ListRowRequest,
  type ParsedList,
} from './fields.ts';

// The check before a list starts: each row's address validated by
// the API's rules (domain/research/email-address.ts), duplicates folded onto their first
// row, free-mail and role mailboxes flagged by the same public lists as the API
// and CRM runs, and the cost against the credits left. What a row shows of
// its cells is cut to a readable length (domain/shown-text.ts).

/** Headers named in a message about the columns; a file may have thousands. */
const SHOWN_HEADERS = 10;

/** Why the list cannot be previewed with this mapping, or null. */
export function mappingError(list: ParsedList, mapping: ColumnMapping): ListFileError | null {
  const column = mapping.email;
  if (column !== undefined && Number.isInteger(column) && column >= 0 && column < list.headers.length) return null;
  const guessed = guessColumnMapping(list.headers, list.rows).email;
  if (guessed !== undefined) {
    return {
      code: 'no_email_column',
      message: `No column is chosen as the e-mail column. "${shortText(list.headers[guessed])}" looks like it holds the addresses: choose E-mail for it.`,
    };
  }
  const named = list.headers.slice(0, SHOWN_HEADERS).map((header) => `"${shortText(header)}"`);
  const more = list.headers.length - named.length;
  const found = `${named.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`;
  return {
    code: 'no_email_column',
    message: `No column is chosen as the e-mail column, and none of the columns (${found}) looks like one. Choose the column that holds the addresses, or add one to the file.`,
  };
}

export function buildListPreview(list: ParsedList, mapping: ColumnMapping, options: { skipFlagged: boolean; creditsLeft: number }): ListPreview {
  const creditsLeft = Math.max(0, Math.floor(options.creditsLeft));
  const hasEmailColumn = mappingError(list, mapping) === null;
  const firstRowOf = new Map<string, number>();
  let budget = creditsLeft;
  let toResearch = 0;
  const previewRow = (cells: string[], rowNumber: number): ListPreviewRow => {
    const cell = hasEmailColumn ? (cells[mapping.email!] ?? '') : '';
    const checked = hasEmailColumn ? checkAddress(cell) : { reason: 'no e-mail column chosen' };
    if ('reason' in checked) {
      return { rowNumber, email: null, shownEmail: shortText(cell), request: null, verdict: 'invalid', reason: checked.reason, willRun: false };
    }
    const { email } = checked;
    // A valid address is short enough to show whole (at most 254 characters).
    const shown = shownEmail(email);
    const first = firstRowOf.get(email);
    if (first !== undefined) return { rowNumber, email, shownEmail: shown, request: null, verdict: 'duplicate', reason: `same as row ${first}`, willRun: false };
    firstRowOf.set(email, rowNumber);
    const classification = classifyEmail(email);
    const verdict = classification.isFreeMail || classification.isDisposable ? 'free_mail' : classification.isRoleBased ? 'role_based' : 'valid';
    const runs = verdict === 'valid' || !options.skipFlagged;
    if (runs) toResearch += 1;
    const willRun = runs && budget > 0;
    if (willRun) budget -= 1;
    return { rowNumber, email, shownEmail: shown, request: requestOf(email, cells, mapping), verdict, reason: null, willRun };
  };
  // A blank line is no row of the list; the rows after it keep their spreadsheet numbers.
  const rows = list.rows.flatMap((cells, index) => (isBlankRow(cells) ? [] : [previewRow(cells, list.firstRowNumber + index)]));
  const count = (verdict: ListPreviewRow['verdict']) => rows.filter((row) => row.verdict === verdict).length;
  const freeMail = count('free_mail');
  const roleBased = count('role_based');
  const willRun = Math.min(toResearch, creditsLeft);
  return {
    totalRows: rows.length,
    valid: count('valid') + freeMail + roleBased,
    invalid: count('invalid'),
    duplicates: count('duplicate'),
    freeMail,
    roleBased,
    skippedFlagged: options.skipFlagged ? freeMail + roleBased : 0,
    toResearch,
    willRun,
    creditsLeft,
    isCutByCredits: toResearch > creditsLeft,
    costMessage: costMessage(toResearch, creditsLeft),
    rows,
  };
}

/** One credit per row researched; when the credits do not cover the list, the first rows that fit run. */
export function costMessage(toResearch: number, creditsLeft: number): string {
  const credits = (count: number) => `${formatCount(count)} ${count === 1 ? 'credit' : 'credits'}`;
  if (toResearch === 0) return 'No row would be researched, so nothing is charged.';
  if (creditsLeft === 0) {
    return `You have no credits left in this billing cycle, so none of the ${formatCount(toResearch)} rows can run. Credits reset at the start of the next cycle, or upgrade on the Billing page.`;
  }
  if (toResearch <= creditsLeft) return `Uses ${formatCount(toResearch)} of your ${credits(creditsLeft)} left.`;
  const left = toResearch - creditsLeft;
  return `Only the first ${formatCount(creditsLeft)} of ${formatCount(toResearch)} rows fit your ${credits(creditsLeft)} left: those run, and the other ${formatCount(left)} ${left === 1 ? 'is' : 'are'} not started and not charged.`;
}

/**
 * The address of a cell, normalised as the API does (trimmed, lower-cased,
 * the domain in its ASCII form), or why it cannot be researched. `Anna <a@x.com>`
 * and `mailto:` links, as mail programs export them, give their address.
 */
export function checkAddress(raw: string): { email: string } | { reason: string } {
  let value = raw.trim().replace(/^mailto:/i, '');
  const bracketed = /<([^<>]*)>\s*$/.exec(value);
  if (bracketed) value = bracketed[1].trim();
  const shown = shortText(value);
  if (value === '') return { reason: 'no e-mail address' };
  const ats = value.split('@').length - 1;
  if (ats === 0) return { reason: `no @ in "${shown}"` };
  if (ats > 1 && /[\s,;]/.test(value)) return { reason: 'more than one address in the cell' };
  if (/\s/.test(value)) return { reason: `a space inside "${shown}"` };
  const at = value.lastIndexOf('@');
  if (at === 0) return { reason: `nothing before the @ in "${shown}"` };
  const domain = value.slice(at + 1);
  if (domain === '') return { reason: `nothing after the @ in "${shown}"` };
  if (!domain.includes('.') || domain.endsWith('.')) return { reason: `the domain "${shortText(domain)}" has no ending such as .com` };
  const email = asciiDomain(normaliseEmail(value));
  if (!isValidEmail(email)) return { reason: `"${shown}" is not a valid e-mail address` };
  return { email };
}

/** The row's hints as the API takes them; a hint the API would refuse (too long) is left out rather than failing the row. */
function requestOf(email: string, cells: string[], mapping: ColumnMapping): ListRowRequest {
  const request: ListRowRequest = { email };
  const cell = (column: number | undefined) => (column === undefined ? '' : (cells[column] ?? ''));
  for (const field of LIST_FIELDS) {
    if (field === 'email' || field === 'prospect_last_name') continue;
    const raw = field === 'prospect_name' ? `${cell(mapping.prospect_name)} ${cell(mapping.prospect_last_name)}` : cell(mapping[field]);
    // Line breaks inside a quoted cell are control characters to the API: they become spaces.
    const value = raw.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
    if (value !== '' && value.length <= MAX_HINT_LENGTH && value.isWellFormed()) request[field] = value;
  }
  return request;
}

/** `anna@müller.de` → `anna@xn--mller-kva.de`, as api/research-request-parser.ts does, with the WHATWG URL parser. */
function asciiDomain(email: string): string {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1);
  if (/^[\x00-\x7f]*$/.test(domain) || !domain.isWellFormed()) return email;
  try {
    return `${email.slice(0, at + 1)}${new URL(`http://${domain}`).hostname}`;
  } catch {
    return email;
  }
}
