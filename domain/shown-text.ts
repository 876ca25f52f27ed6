// Text that people put in a file or a CRM (a list's cells, a contact's name)
// can be of any length: one cell of a 2 MiB upload may hold a megabyte. A page
// shows such text cut to a readable length; the data itself stays whole (the
// downloads hold every cell as it was). Pure string work: the dashboard
// imports this file.

/** The most characters of one person-provided value a page shows in one place. */
export const SHOWN_TEXT_CHARS = 60;

/**
 * `text` as a page shows it: runs of white space (line breaks in a quoted
 * cell) as one space, and past `maxChars` cut with an ellipsis, never inside
 * a surrogate pair.
 */
export function shortText(text: string, maxChars = SHOWN_TEXT_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxChars) return flat;
  let end = maxChars - 1;
  const last = flat.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${flat.slice(0, end).trimEnd()}…`;
}
