import type { Language } from '../../domain/research/languages.ts';
import { LANGUAGES } from '../../domain/research/languages.ts';

// Job titles the sandbox provider world uses, and their usual English form.
const TITLES: Record<string, string> = {
  'directrice marketing': 'Marketing Director',
  'directeur marketing': 'Marketing Director',
  'directeur commercial': 'Sales Director',
  'directrice commerciale': 'Sales Director',
  'directeur général': 'Chief Executive Officer',
  'directrice générale': 'Chief Executive Officer',
  'responsable des ventes': 'Head of Sales',
  'directeur technique': 'Chief Technology Officer',
  'dyrektor sprzedaży': 'Sales Director',
  'dyrektorka sprzedaży': 'Sales Director',
  'dyrektor marketingu': 'Marketing Director',
  'dyrektorka marketingu': 'Marketing Director',
  'prezes zarządu': 'Chief Executive Officer',
  'dyrektor generalny': 'Chief Executive Officer',
  'kierownik ds. sprzedaży': 'Sales Manager',
  'kierownik działu sprzedaży': 'Sales Department Manager',
  'technischer geschäftsführer': 'Chief Technology Officer',
  'bereichsleiter vertrieb': 'VP of Sales',
  'leiter softwareentwicklung': 'Head of Software Development',
  'teamleiter vertrieb': 'Sales Team Lead',
  personalreferentin: 'HR Specialist',
  personalreferent: 'HR Specialist',
  'président-directeur général': 'Chairman and Chief Executive Officer',
  'directeur administratif et financier': 'Chief Financial Officer',
  'responsable marketing digital': 'Digital Marketing Manager',
  'director de ventas': 'Sales Director',
  'directora de ventas': 'Sales Director',
  'dyrektor ds. technologii': 'Chief Technology Officer',
  'leiter vertrieb': 'Head of Sales',
  'leiterin vertrieb': 'Head of Sales',
  vertriebsleiter: 'Head of Sales',
  vertriebsleiterin: 'Head of Sales',
  geschäftsführer: 'Managing Director',
  geschäftsführerin: 'Managing Director',
  marketingleiterin: 'Head of Marketing',
  marketingleiter: 'Head of Marketing',
  'technischer leiter': 'Head of Technology',
  'directora de marketing': 'Marketing Director',
  'director de marketing': 'Marketing Director',
  'director comercial': 'Sales Director',
  'directora comercial': 'Sales Director',
  'director general': 'General Manager',
  'jefe de ventas': 'Head of Sales',
  'jefa de ventas': 'Head of Sales',
  'director de tecnología': 'Chief Technology Officer',
  'direttore commerciale': 'Sales Director',
  'direttrice commerciale': 'Sales Director',
  'direttrice marketing': 'Marketing Director',
  'responsabile marketing': 'Head of Marketing',
  'amministratore delegato': 'Chief Executive Officer',
  'diretor comercial': 'Sales Director',
  'diretora comercial': 'Sales Director',
  'diretora de marketing': 'Marketing Director',
  'diretor de marketing': 'Marketing Director',
  'gerente de vendas': 'Sales Manager',
  'diretor executivo': 'Chief Executive Officer',
  'directeur verkoop': 'Sales Director',
  marketingdirecteur: 'Marketing Director',
  'algemeen directeur': 'General Manager',
  'hoofd marketing': 'Head of Marketing',
  'hoofd verkoop': 'Head of Sales',
  verkoopleider: 'Sales Manager',
};

// Word-level fallback for titles outside the list: roles and areas in the eight languages.
const ROLE_WORDS: Record<string, string> = {
  dyrektor: 'Director', dyrektorka: 'Director', directeur: 'Director', directrice: 'Director', director: 'Director', directora: 'Director',
  direttore: 'Director', direttrice: 'Director', diretor: 'Director', diretora: 'Director', leiter: 'Head', leiterin: 'Head', hoofd: 'Head',
  jefe: 'Head', jefa: 'Head', kierownik: 'Manager', kierowniczka: 'Manager', gerente: 'Manager', responsable: 'Manager', responsabile: 'Manager',
  manager: 'Manager', menedżer: 'Manager', specjalista: 'Specialist', spécialiste: 'Specialist', especialista: 'Specialist', specialista: 'Specialist',
  berater: 'Consultant', beraterin: 'Consultant', consultant: 'Consultant', consultor: 'Consultant', konsultant: 'Consultant',
};
const AREA_WORDS: Record<string, string> = {
  sprzedaży: 'Sales', ventes: 'Sales', ventas: 'Sales', vendite: 'Sales', vendas: 'Sales', verkoop: 'Sales', vertrieb: 'Sales', commercial: 'Sales',
  commerciale: 'Sales', comercial: 'Sales', marketingu: 'Marketing', marketing: 'Marketing', finansowy: 'Finance', finansów: 'Finance',
  financier: 'Finance', financière: 'Finance', financiero: 'Finance', financiera: 'Finance', finanziaria: 'Finance', financeira: 'Finance', finanziario: 'Finance', financeiro: 'Finance', financiën: 'Finance',
  finanzen: 'Finance', technique: 'Technology', technologii: 'Technology', tecnología: 'Technology', tecnologia: 'Technology', technik: 'Technology',
  techniek: 'Technology', operacyjny: 'Operations', opérations: 'Operations', operaciones: 'Operations', operazioni: 'Operations',
  operações: 'Operations', operaties: 'Operations', personalu: 'People', personal: 'People', ressources: 'People', humaines: '', humanos: '',
  recursos: 'People', produktu: 'Product', produit: 'Product', producto: 'Product', prodotto: 'Product', produto: 'Product', product: 'Product', produkt: 'Product',
};

/** The English form of a job title: known phrase, else word by word, else unchanged (taken to be English). */
export function titleInEnglish(title: string): string {
  const key = title.trim().toLocaleLowerCase();
  if (TITLES[key]) return TITLES[key];
  const words = key.split(/[\s,/&-]+/);
  const role = words.map((word) => ROLE_WORDS[word]).find(Boolean);
  const areas = [...new Set(words.map((word) => AREA_WORDS[word]).filter(Boolean))];
  if (!role && areas.length === 0) return title.trim();
  if (!role) return `${areas.join(' and ')} Specialist`;
  if (areas.length === 0) return role;
  return role === 'Head' ? `Head of ${areas.join(' and ')}` : `${areas.join(' and ')} ${role}`;
}

// Frequent function words, mostly unique to one language: enough to tell the eight apart in a paragraph.
const STOPWORDS: Record<Language, string[]> = {
  en: ['the', 'and', 'of', 'is', 'for', 'with', 'to', 'its', 'that', 'our', 'by', 'are', 'from', 'we'],
  pl: ['i', 'w', 'się', 'jest', 'na', 'dla', 'oraz', 'z', 'do', 'że', 'od', 'roku', 'ze', 'firmy'],
  de: ['und', 'der', 'die', 'das', 'ist', 'für', 'mit', 'von', 'ein', 'eine', 'wir', 'unser', 'zum', 'seit', 'bis'],
  fr: ['et', 'le', 'les', 'des', 'est', 'pour', 'une', 'du', 'dans', 'nous', 'notre', 'au', 'aux', 'leur'],
  es: ['y', 'el', 'los', 'las', 'es', 'para', 'una', 'del', 'con', 'desde', 'su', 'sus', 'nuestro', 'al'],
  it: ['il', 'di', 'per', 'che', 'della', 'con', 'è', 'gli', 'dalla', 'dal', 'delle', 'alle', 'nel', 'sede'],
  pt: ['o', 'os', 'é', 'do', 'da', 'dos', 'das', 'para', 'com', 'uma', 'não', 'seus', 'nossa', 'ao'],
  nl: ['en', 'het', 'een', 'van', 'voor', 'met', 'op', 'wij', 'ons', 'bij', 'sinds', 'naar', 'vanuit', 'zijn'],
};

/** The most likely of the eight languages of a text, by function-word counts. */
export function detectLanguage(text: string): Language {
  const words = text.toLocaleLowerCase().split(/[^\p{L}]+/u);
  let best: Language = 'en';
  let bestScore = 0;
  for (const language of LANGUAGES) {
    const stopwords = new Set(STOPWORDS[language]);
    const score = words.filter((word) => stopwords.has(word)).length;
    if (score > bestScore) [best, bestScore] = [language, score];
  }
  return best;
}

/** An English description: the source when it is English, else an English rendering of the known facts. */
export function descriptionInEnglish(company: { name?: string; description?: string | null; industry?: string | null; hq?: string | null; employees?: string | null }): string {
  const description = company.description?.trim() ?? '';
  if (description !== '' && detectLanguage(description) === 'en') return description;
  const name = company.name ?? 'The company';
  const industry = company.industry ? `${company.industry} company` : 'company';
  const where = company.hq ? ` headquartered in ${company.hq}` : '';
  const size = company.employees ? ` with ${company.employees} employees` : '';
  return `${name} is a ${industry}${where}${size}. It serves business customers with its own products and services.`;
}
