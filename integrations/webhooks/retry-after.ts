// `Retry-After` as RFC 9110 §10.2.3 writes it: a number of seconds, or an
// HTTP-date in any of its three forms (IMF-fixdate, RFC 850, asctime).

const DELAY_SECONDS = /^\d+$/;
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC_850 = /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
/** asctime carries no zone: it is GMT by definition, so it is read as such. */
const ASCTIME = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * The wait a `Retry-After` value asks for, in milliseconds from `now` (a date
 * already past asks for none), or null when the header is absent or is
 * neither form: a malformed header is ignored, as if not sent.
 */
export function retryAfterMs(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  let at = Number.NaN;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) at = Date.parse(text);
  else if (ASCTIME.test(text)) at = Date.parse(`${text} GMT`);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
