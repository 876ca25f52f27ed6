// The one place where job titles and place names get their display case.
// Providers send them lower-cased (PDL without `titlecase`), title-cased word by
// word (PDL with it: "Vp Of Operations", "North Rhine-westphalia") or as the
// person typed them; a reply that shows one person twice must not show two
// spellings. Pure string work: the workflow bundle may import this file.

/** Role and business acronyms that are always upper case in a title. */
const ACRONYMS = new Set([
  'ceo', 'cto', 'cfo', 'coo', 'cmo', 'cro', 'cio', 'ciso', 'cpo', 'cco', 'cdo', 'chro', 'evp', 'svp', 'avp', 'vp',
  'hr', 'it', 'ai', 'ml', 'qa', 'ux', 'ui', 'pr', 'seo', 'b2b', 'b2c', 'saas', 'emea', 'apac', 'latam', 'dach', 'nordics',
  'us', 'usa', 'uk', 'eu', 'gm', 'md', 'r&d', 'erp', 'crm', 'sdr', 'bdr', 'kam', 'gtm', 'ehs', 'fp&a',
]);

/**
 * Short joining words stay lower case inside a title or place, in the eight
 * languages the service writes (English "of", French "et", German "für", …).
 */
const SMALL_WORDS = new Set([
  'a', 'an', 'and', 'as', 'at', 'by', 'for', 'in', 'of', 'on', 'or', 'the', 'to', 'with',
  'de', 'des', 'du', 'la', 'le', 'les', 'et', 'en', 'aux', 'au',
  'und', 'für', 'der', 'die', 'das', 'im', 'am', 'von', 'vom', 'zu',
  'del', 'y', 'e', 'el', 'los', 'las', 'di', 'della', 'dei', 'da', 'do', 'dos', 'das', 'em',
  'van', 'het', 'voor', 'op', 'ds', 'ds.', 'ii', 'w', 'i', 'z', 'ze',
]);

function capitalise(word: string): string {
  if (word === '') return word;
  // `l'Oréal`, `d'Ivoire`: the elided article stays lower, the word after it is capitalised.
  const elided = /^([dl])['’](.+)$/i.exec(word);
  if (elided) return `${elided[1].toLowerCase()}'${capitalise(elided[2])}`;
  return word.charAt(0).toLocaleUpperCase() + word.slice(1).toLocaleLowerCase();
}

function displayWord(token: string, isFirst: boolean, keepAcronyms: boolean): string {
  // Brackets and punctuation around a word keep their place: "(ceo)" → "(CEO)".
  const [, before = '', word = '', after = ''] = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}&]*)$/u.exec(token) ?? [];
  const lower = word.toLocaleLowerCase();
  if (keepAcronyms && ACRONYMS.has(lower)) return `${before}${word.toLocaleUpperCase()}${after}`;
  if (!isFirst && SMALL_WORDS.has(lower)) return `${before}${lower}${after}`;
  // Hyphenated names capitalise every part: Rhine-Westphalia, Président-Directeur.
  const parts = word.split('-').map((part, index) => (index > 0 && SMALL_WORDS.has(part.toLocaleLowerCase()) ? part.toLocaleLowerCase() : capitalise(part)));
  return `${before}${parts.join('-')}${after}`;
}

function displayCase(text: string, keepAcronyms: boolean): string {
  const words = text.trim().replace(/\s+/g, ' ').split(' ');
  return words.map((word, index) => displayWord(word, index === 0 || /[,(/&]$/.test(words[index - 1] ?? ''), keepAcronyms)).join(' ');
}

/** `vp of operations`, `Vp Of Operations`, `VP of operations` → `VP of Operations`. */
export function displayTitle(title: string | null | undefined): string | null {
  const trimmed = title?.trim();
  return trimmed ? displayCase(trimmed, true) : null;
}

/** `north rhine-westphalia, germany` → `North Rhine-Westphalia, Germany`; `île-de-france` → `Île-de-France`; `hamburg, hamburg, germany` → `Hamburg, Germany`. */
export function displayPlace(place: string | null | undefined): string | null {
  const trimmed = place?.trim();
  if (!trimmed) return null;
  // Country codes and US state abbreviations (`US`, `CA`) arrive upper case and stay so.
  const parts = trimmed
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => (/^[A-Z]{2,3}$/.test(part) ? part : displayCase(part, false)));
  // A city that is its own state (Hamburg, Berlin, Vienna, Singapore) is said once: `Hamburg, Germany`.
  return parts.filter((part, index) => parts.findIndex((other) => other.toLocaleLowerCase() === part.toLocaleLowerCase()) === index).join(', ');
}

/** Joins place parts (`city`, `state`, `country`) into one display string; null when none is known. */
export function joinPlace(...parts: (string | null | undefined)[]): string | null {
  return displayPlace(parts.filter((part) => part && part.trim()).join(', '));
}
