import type { Rng } from './prng.ts';
import type { Locale } from './word-lists.ts';

// Seniority follows Apollo's vocabulary; PDL's `job_title_levels` is derived
// from it (`c_suite` → `cxo`).
export type Seniority = 'c_suite' | 'vp' | 'director' | 'manager' | 'senior' | 'entry';

type Department = 'sales' | 'marketing' | 'engineering' | 'finance' | 'operations' | 'people';

const ENGLISH: Record<Seniority, (d: Department) => string> = {
  c_suite: (d) => ({ sales: 'Chief Revenue Officer', marketing: 'Chief Marketing Officer', engineering: 'Chief Technology Officer', finance: 'Chief Financial Officer', operations: 'Chief Executive Officer', people: 'Chief People Officer' })[d],
  vp: (d) => `VP of ${cap(d)}`,
  director: (d) => `Director of ${cap(d)}`,
  manager: (d) => `${cap(d)} Manager`,
  senior: (d) => ({ sales: 'Senior Account Executive', marketing: 'Senior Marketing Specialist', engineering: 'Senior Software Engineer', finance: 'Senior Accountant', operations: 'Senior Operations Analyst', people: 'Senior Recruiter' })[d],
  entry: (d) => ({ sales: 'Sales Development Representative', marketing: 'Marketing Coordinator', engineering: 'Software Engineer', finance: 'Financial Analyst', operations: 'Operations Associate', people: 'HR Coordinator' })[d],
};

export type Gender = 'm' | 'f';

/** A title with its masculine and feminine forms (the same string where the language has one). */
type Gendered = readonly [masculine: string, feminine: string];

// Titles as people really write them on their profiles in their own language.
const LOCAL: Partial<Record<Locale, Partial<Record<Seniority, Partial<Record<Department, Gendered>>>>>> = {
  de: {
    c_suite: { operations: ['Geschäftsführer', 'Geschäftsführerin'], engineering: ['Technischer Geschäftsführer', 'Technische Geschäftsführerin'] },
    vp: { sales: ['Bereichsleiter Vertrieb', 'Bereichsleiterin Vertrieb'] },
    director: { sales: ['Vertriebsleiter', 'Vertriebsleiterin'], marketing: ['Leiter Marketing', 'Leiterin Marketing'], engineering: ['Leiter Softwareentwicklung', 'Leiterin Softwareentwicklung'] },
    manager: { sales: ['Teamleiter Vertrieb', 'Teamleiterin Vertrieb'], people: ['Personalreferent', 'Personalreferentin'] },
  },
  fr: {
    c_suite: { operations: ['Président-Directeur Général', 'Présidente-Directrice Générale'], finance: ['Directeur Administratif et Financier', 'Directrice Administrative et Financière'] },
    director: { marketing: ['Directeur Marketing', 'Directrice Marketing'], sales: ['Directeur Commercial', 'Directrice Commerciale'] },
    manager: { marketing: ['Responsable Marketing Digital', 'Responsable Marketing Digital'] },
  },
  pl: {
    c_suite: { operations: ['Prezes Zarządu', 'Prezes Zarządu'] },
    director: { sales: ['Dyrektor Sprzedaży', 'Dyrektor Sprzedaży'], marketing: ['Dyrektor Marketingu', 'Dyrektor Marketingu'] },
    manager: { sales: ['Kierownik Działu Sprzedaży', 'Kierowniczka Działu Sprzedaży'] },
  },
  es: { director: { sales: ['Director de Ventas', 'Directora de Ventas'], marketing: ['Director de Marketing', 'Directora de Marketing'] } },
  nl: { director: { sales: ['Directeur Verkoop', 'Directeur Verkoop'] } },
  it: { director: { sales: ['Direttore Commerciale', 'Direttrice Commerciale'] } },
};

const DEPARTMENTS: readonly Department[] = ['sales', 'marketing', 'engineering', 'finance', 'operations', 'people'];

export interface GeneratedTitle {
  title: string;
  seniority: Seniority;
  department: Department;
  isEnglish: boolean;
}

/** A title for the given seniority; people in non-English locales often keep the local form. */
export function generateTitle(rng: Rng, seniority: Seniority, locale: Locale, gender: Gender): GeneratedTitle {
  const department = rng.pick(DEPARTMENTS);
  const local = LOCAL[locale]?.[seniority]?.[department];
  if (local && rng.chance(0.7)) return { title: local[gender === 'm' ? 0 : 1], seniority, department, isEnglish: false };
  return { title: ENGLISH[seniority](department), seniority, department, isEnglish: true };
}

/** Leadership first (every company has decision makers), then a realistic pyramid. */
export function seniorityForRank(rng: Rng, rank: number): Seniority {
  if (rank === 0) return 'c_suite';
  if (rank === 1) return 'vp';
  if (rank === 2) return 'director';
  const roll = rng.next();
  if (roll < 0.04) return 'c_suite';
  if (roll < 0.1) return 'vp';
  if (roll < 0.2) return 'director';
  if (roll < 0.42) return 'manager';
  if (roll < 0.7) return 'senior';
  return 'entry';
}

function cap(word: string): string {
  return word[0].toUpperCase() + word.slice(1);
}
