/**
 * Why a contact of a run failed, as its owner reads it. The run records the
 * reason as the worker met it: a research failure's code, or the CRM's own
 * answer with its error code or HTTP status in front (`CANNOT_UPDATE_CONVERTED_LEAD: …`,
 * `Pipedrive answered 410: …`). Those codes mean nothing to a sales person;
 * the CRM's words stay, quoted, so that its reason is still shown.
 */
const RESEARCH_FAILURES: Record<string, string> = {
  timeout: 'The research took longer than 3 minutes and was stopped.',
  internal_error: 'The research failed because of an error on our side.',
  'research failed': 'The research failed.',
};

// What the CRM said, after the code that came with it: Salesforce's and HubSpot's `ERROR_CODE: message`, our "<CRM> answered <status>: message".
const CODE_PREFIX = /^(?:[A-Z][A-Z0-9_]{2,}: |[A-Za-z]+ answered \d{3}(?: [A-Z_]+)?: )/;
const FOR_GOOD = /^(.+?) refused the write for good \(not tried again\): (.*)$/s;
const REFUSED = /^(.+?) refused (the write|the mapped fields|the note): (.*)$/s;

/** The CRM's own message without its code: quoted when it came from the CRM, as it is when it is ours. */
function crmReason(reason: string): string {
  const trimmed = reason.trim().replace(/\.$/, '');
  if (!CODE_PREFIX.test(trimmed)) return trimmed;
  // Several errors of one answer come joined by "; ", each with its code.
  const said = trimmed.split(/; (?=[A-Z][A-Z0-9_]{2,}: )/).map((part) => part.replace(CODE_PREFIX, '').trim()).filter(Boolean);
  return `it said “${said.join('; ')}”`;
}

export function contactErrorText(error: string): string {
  if (RESEARCH_FAILURES[error]) return RESEARCH_FAILURES[error];
  const forGood = FOR_GOOD.exec(error);
  if (forGood) return `${forGood[1]} refused the write for good: ${crmReason(forGood[2]!)}. Later runs leave this record out.`;
  const refused = REFUSED.exec(error);
  if (refused) return `${refused[1]} refused ${refused[2]}: ${crmReason(refused[3]!)}.`;
  return error;
}
