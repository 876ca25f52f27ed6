import type { Rng } from './prng.ts';
import type { Locale } from './word-lists.ts';

interface DescriptionInput {
  name: string;
  locale: Locale;
  offer: string;
  founded: number;
  clientsCount: string | null;
  city: string;
}

// Company pages abroad are often written in the local language; the AI step
// translates them (docs/api.md#the-company: description is returned in English).
const LOCAL_TEMPLATES: Partial<Record<Locale, (input: DescriptionInput) => string>> = {
  de: (i) => `${i.name} entwickelt seit ${i.founded} Lösungen für mittelständische Unternehmen in der DACH-Region. Unser Team in ${cap(i.city)} begleitet Kunden von der Beratung bis zum Betrieb.`,
  fr: (i) => `Fondée en ${i.founded}, ${i.name} accompagne les entreprises françaises et européennes dans leur transformation. Notre équipe basée à ${cap(i.city)} conçoit des services sur mesure.`,
  pl: (i) => `${i.name} od ${i.founded} roku wspiera firmy w Polsce i Europie Środkowej. Zespół z siedzibą w mieście ${cap(i.city)} dostarcza rozwiązania dopasowane do potrzeb klientów.`,
  es: (i) => `${i.name} ayuda desde ${i.founded} a empresas de España y Latinoamérica a crecer con soluciones a medida desde ${cap(i.city)}.`,
  nl: (i) => `${i.name} helpt sinds ${i.founded} bedrijven in de Benelux met slimme oplossingen, vanuit ons kantoor in ${cap(i.city)}.`,
  it: (i) => `Dal ${i.founded} ${i.name} affianca le aziende italiane con soluzioni su misura, dalla sede di ${cap(i.city)}.`,
};

const AUDIENCES = ['mid-market companies', 'enterprise teams', 'small businesses', 'public-sector organisations', 'fast-growing startups'];

export function companyDescription(rng: Rng, input: DescriptionInput): { description: string; isEnglish: boolean } {
  const local = LOCAL_TEMPLATES[input.locale];
  if (local && rng.chance(0.5)) return { description: local(input), isEnglish: false };
  const clients = input.clientsCount ? ` Trusted by more than ${Number(input.clientsCount).toLocaleString('en-US')} clients.` : '';
  return {
    description: `${input.name} provides ${input.offer} to ${rng.pick(AUDIENCES)}. Founded in ${input.founded} and headquartered in ${cap(input.city)}.${clients}`,
    isEnglish: true,
  };
}

function cap(text: string): string {
  return text.replace(/(^|\s)\S/g, (m) => m.toUpperCase());
}
