import type { ColumnMapping, ListField } from './fields.ts';

// Guessing which column holds which field from the header words people use in
// the eight output languages (en, de, fr, es, it, pt, nl, pl) and in the
// exports of common prospecting tools. A guess only: the page lets people
// change every column.

/** Whole headers, compared after `normaliseHeader`. */
const EXACT: Record<ListField, string[]> = {
  email: [
    'email', 'e mail', 'mail', 'email address', 'e mail address', 'work email', 'business email', 'email 1', 'primary email',
    'e mail adresse', 'emailadresse', 'mailadresse', 'geschaftliche e mail',
    'courriel', 'adresse e mail', 'adresse email', 'adresse mail', 'adresse electronique', 'mel',
    'correo', 'correo electronico', 'direccion de correo', 'direccion de correo electronico', 'email corporativo',
    'posta elettronica', 'indirizzo email', 'indirizzo e mail', 'indirizzo di posta elettronica',
    'endereco de email', 'endereco de e mail', 'correio eletronico', 'correio electronico',
    'e mailadres', 'emailadres', 'mailadres',
    'adres email', 'adres e mail', 'poczta', 'poczta elektroniczna', 'e mail sluzbowy', 'email sluzbowy',
  ],
  prospect_name: [
    'name', 'full name', 'fullname', 'contact', 'contact name', 'person', 'person name', 'prospect', 'prospect name', 'lead', 'lead name',
    'vollstandiger name', 'ansprechpartner', 'kontakt', 'kontaktperson', 'name des kontakts',
    'nom', 'nom complet', 'prenom nom', 'nom et prenom', 'nom prenom', 'interlocuteur',
    'nombre', 'nombre completo', 'nombre y apellidos', 'contacto', 'persona de contacto',
    'nome', 'nome completo', 'nome e cognome', 'contatto', 'referente', 'nominativo',
    'contato', 'nome e sobrenome', 'pessoa de contato',
    'naam', 'volledige naam', 'contactpersoon', 'voor en achternaam',
    'imie i nazwisko', 'osoba kontaktowa', 'osoba',
  ],
  prospect_last_name: [],
  company_name: [
    'company', 'company name', 'companyname', 'organization', 'organisation', 'organization name', 'account', 'account name', 'employer', 'business', 'firm',
    'firma', 'firmenname', 'unternehmen', 'unternehmensname', 'arbeitgeber', 'organisation name',
    'societe', 'entreprise', 'nom de l entreprise', 'nom de la societe', 'raison sociale', 'employeur',
    'empresa', 'nombre de la empresa', 'compania', 'organizacion', 'razon social',
    'azienda', 'nome azienda', 'nome dell azienda', 'societa', 'ragione sociale', 'organizzazione',
    'nome da empresa', 'companhia', 'organizacao',
    'bedrijf', 'bedrijfsnaam', 'onderneming', 'organisatie', 'werkgever',
    'nazwa firmy', 'przedsiebiorstwo', 'organizacja', 'pracodawca',
  ],
  social_url: [
    'linkedin', 'linkedin url', 'linkedin profile', 'linkedin profile url', 'person linkedin url', 'profile url', 'social url', 'profile', 'social profile',
    'linkedin profil', 'xing', 'xing profil', 'profil', 'profil linkedin', 'perfil', 'perfil de linkedin', 'perfil linkedin',
    'profilo linkedin', 'profilo', 'linkedin profiel', 'profiel',
  ],
  company_social_url: [
    'company linkedin', 'company linkedin url', 'company social url', 'company page', 'company page url', 'linkedin company', 'linkedin company url',
    'organization linkedin', 'account linkedin', 'firmen linkedin', 'unternehmens linkedin', 'linkedin firma', 'linkedin unternehmen',
    'linkedin entreprise', 'linkedin societe', 'page linkedin entreprise', 'linkedin empresa', 'linkedin de la empresa', 'linkedin da empresa',
    'linkedin azienda', 'pagina linkedin azienda', 'linkedin bedrijf', 'bedrijfs linkedin', 'linkedin firmy', 'profil firmy',
  ],
};

// Words inside longer headers ("E-Mail geschäftlich", "LinkedIn-Profil der Firma").
const EMAIL_WORD = /(e ?mail|courriel|correo|correio|poczta|posta elettronica)/;
const COMPANY_WORD =
  /(company|compan|organi[sz]ation|employer|account|firm|unternehmen|arbeitgeber|societe|entreprise|employeur|empresa|organizacion|azienda|societa|organizzazione|organizacao|bedrijf|onderneming|organisatie|werkgever|przedsiebiorstw|organizacj|pracodawc)/;
const SOCIAL_WORD = /(linkedin|xing|social|profil|perfil|profiel)/;
const NAME_WORD = /\b(name|nom|nombre|nome|naam|nazwisko|contact|kontakt|ansprechpartner|contacto|contato|contatto|contactpersoon)\b/;
// A first-name column next to a surname column: a bare "Nom"/"Nombre" is then the surname, not a full name.
const FIRST_NAME = /^(first name|firstname|given name|vorname|prenom|primer nombre|nome proprio|primeiro nome|voornaam|imie)$/;
// A surname alone is no full name either.
const LAST_NAME = /^(last name|lastname|surname|family name|nachname|nom de famille|apellidos?|cognome|sobrenome|apelido|achternaam|nazwisko)$/;
const WEBSITE_WORD = /(website|web site|domain|homepage|site|webseite|sitio|sito|strona)/;

/** Lower case, no accents, punctuation as spaces: "E-Mail-Adresse" → "e mail adresse". */
export function normaliseHeader(header: string): string {
  return header
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ł/g, 'l')
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Which column holds which field, from the headers (and, when given, the first
 * rows: a column of addresses under any header is the e-mail column). `email`
 * is left unmapped when no column looks like one.
 */
export function guessColumnMapping(headers: string[], rows: string[][] = []): ColumnMapping {
  const names = headers.map(normaliseHeader);
  const sample = rows.slice(0, 50);
  const share = (index: number, test: (cell: string) => boolean) => {
    const cells = sample.map((row) => row[index] ?? '').filter((cell) => cell.trim() !== '');
    return cells.length === 0 ? 0 : cells.filter(test).length / cells.length;
  };
  const holdsAddresses = names.map((_, index) => share(index, (cell) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(cell.trim())) >= 0.5);
  const mapping: ColumnMapping = {};
  const used = new Set<number>();
  const assign = (field: ListField, index: number) => {
    if (index < 0 || mapping[field] !== undefined || used.has(index)) return;
    mapping[field] = index;
    used.add(index);
  };

  assign('email', names.findIndex((name) => EXACT.email.includes(name)));
  assign('email', names.findIndex((name) => EMAIL_WORD.test(name) && !SOCIAL_WORD.test(name)));
  assign('email', holdsAddresses.findIndex(Boolean));

  const hasFirstNameColumn = names.some((name) => FIRST_NAME.test(name));
  const free = (index: number) => !used.has(index) && !holdsAddresses[index] && !WEBSITE_WORD.test(names[index]);
  const pick = (field: ListField, test: (name: string) => boolean) => assign(field, names.findIndex((name, index) => free(index) && test(name)));
  const isBareName = (name: string) => /^(name|nom|nombre|nome|naam)$/.test(name);

  pick('company_social_url', (name) => EXACT.company_social_url.includes(name));
  pick('social_url', (name) => EXACT.social_url.includes(name));
  pick('company_name', (name) => EXACT.company_name.includes(name));
  pick('prospect_name', (name) => EXACT.prospect_name.includes(name) && !(hasFirstNameColumn && isBareName(name)));
  pick('company_social_url', (name) => SOCIAL_WORD.test(name) && COMPANY_WORD.test(name));
  pick('social_url', (name) => SOCIAL_WORD.test(name) && !COMPANY_WORD.test(name));
  pick('company_name', (name) => COMPANY_WORD.test(name) && !SOCIAL_WORD.test(name) && !EMAIL_WORD.test(name));
  pick('prospect_name', (name) => NAME_WORD.test(name) && !COMPANY_WORD.test(name) && !FIRST_NAME.test(name) && !LAST_NAME.test(name) && !(hasFirstNameColumn && isBareName(name)));
  // No full-name column but a surname column: the first name ("First name", or a bare "Nombre"
  // next to "Apellidos") and the surname, joined into one hint.
  const lastName = names.findIndex((name, index) => free(index) && (LAST_NAME.test(name) || (hasFirstNameColumn && isBareName(name))));
  if (lastName >= 0) {
    if (mapping.prospect_name === undefined) pick('prospect_name', (name) => FIRST_NAME.test(name));
    const first = mapping.prospect_name === undefined ? '' : names[mapping.prospect_name];
    if (FIRST_NAME.test(first) || isBareName(first)) assign('prospect_last_name', lastName);
  }

  // Profile links under a header no word matched.
  const linkColumn = (pattern: RegExp) => names.findIndex((_, index) => free(index) && share(index, (cell) => pattern.test(cell)) >= 0.5);
  assign('company_social_url', linkColumn(/linkedin\.com\/(company|school|showcase)\//i));
  assign('social_url', linkColumn(/linkedin\.com\/in\//i));
  return mapping;
}
