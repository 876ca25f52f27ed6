import { createRng, type Rng } from './prng.ts';
import { generateTitle, seniorityForRank, type Gender, type Seniority } from './titles.ts';
import { COMPANY_STEMS, EMPLOYEE_RANGES, INDUSTRIES, LOCALE_WEIGHTS, LOCALES, REVENUE_RANGES, type Locale } from './word-lists.ts';
import { companyDescription } from './descriptions.ts';

/** Which outside provider has a record of an entity; drives the waterfall's reach. */
export type Coverage = 'pdl' | 'apollo' | 'both' | 'none';

export interface WorldCompany {
  index: number;
  name: string;
  domain: string;
  locale: Locale;
  industry: string;
  description: string;
  isEnglishDescription: boolean;
  city: string;
  region: string;
  country: string;
  employeeRange: string;
  employeeCount: number;
  revenueRange: string;
  clientsCount: string | null;
  founded: number;
  linkedinUrl: string;
  coverage: Coverage;
  firstPerson: number;
  peopleCount: number;
}

export interface WorldPerson {
  index: number;
  firstName: string;
  lastName: string;
  fullName: string;
  email: string;
  title: string;
  seniority: Seniority;
  isEnglishTitle: boolean;
  company: number;
  linkedinUrl: string;
  roleStart: string;
  /** PDL style: `city, region, country` in lower case. */
  location: string;
  coverage: Coverage;
  postCount: number;
}

export interface WorldData {
  seed: number;
  now: Date;
  companies: WorldCompany[];
  people: WorldPerson[];
}

export interface WorldSize {
  companies: number;
  /** Average people per company. */
  peoplePerCompany: number;
}

const DEFAULT_SIZE: WorldSize = { companies: 1200, peoplePerCompany: 10 };

/** PDL alone ~70 %, Apollo alone ~70 %, together ~90 %: the waterfall matters. */
function personCoverage(rng: Rng): Coverage {
  const roll = rng.next();
  return roll < 0.5 ? 'both' : roll < 0.7 ? 'pdl' : roll < 0.9 ? 'apollo' : 'none';
}

function companyCoverage(rng: Rng): Coverage {
  const roll = rng.next();
  return roll < 0.6 ? 'both' : roll < 0.76 ? 'pdl' : roll < 0.92 ? 'apollo' : 'none';
}

function pickLocale(rng: Rng): Locale {
  const total = LOCALE_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = rng.next() * total;
  for (const [locale, weight] of LOCALE_WEIGHTS) {
    roll -= weight;
    if (roll < 0) return locale;
  }
  return 'en-us';
}

/** ASCII form for addresses and URL slugs (`Łukasz Wiśniewski` → `lukasz`, `wisniewski`). */
export function asciiSlug(text: string): string {
  return text
    .replace(/ł/g, 'l').replace(/Ł/g, 'L').replace(/ß/g, 'ss')
    .normalize('NFD').replace(/[\u0300-\u036f]/g, '')
    .toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** Polish adjectival surnames agree with gender: Kowalski → Kowalska. */
function genderedSurname(surname: string, gender: Gender, locale: Locale): string {
  return locale === 'pl' && gender === 'f' ? surname.replace(/(sk|ck|dzk)i$/, '$1a') : surname;
}

function locationOf(place: { city: string; region: string }, country: string): string {
  return `${place.city}, ${place.region}, ${country}`;
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function generateWorld(seed: number, now: Date, size: WorldSize = DEFAULT_SIZE): WorldData {
  const rng = createRng(seed);
  const companies: WorldCompany[] = [];
  const people: WorldPerson[] = [];
  const usedNames = new Set<string>();
  const usedDomains = new Set<string>();
  const nowMs = now.getTime();
  const DAY_MS = 86_400_000;

  for (let index = 0; index < size.companies; index++) {
    const locale = pickLocale(rng);
    const words = LOCALES[locale];
    const sector = rng.pick(INDUSTRIES);
    let name = `${rng.pick(COMPANY_STEMS)} ${rng.pick(sector.suffixes)}`;
    while (usedNames.has(name)) name = `${rng.pick(COMPANY_STEMS)} ${name}`;
    usedNames.add(name);
    let domain = `${asciiSlug(name).replace(/-/g, '')}.${rng.pick(words.tlds)}`;
    for (let n = 2; usedDomains.has(domain); n++) domain = domain.replace(/^([a-z]+)\d*\./, `$1${n}.`);
    usedDomains.add(domain);
    const place = rng.pick(words.cities);
    const sizeRank = rng.int(0, EMPLOYEE_RANGES.length - 1);
    const [low, high] = EMPLOYEE_RANGES[sizeRank].split('-').map(Number);
    const founded = rng.int(1975, now.getUTCFullYear() - 2);
    const clientsCount = rng.chance(0.4) ? String(rng.int(1, 40) * (sizeRank + 1) * 25) : null;
    const text = companyDescription(rng, { name, locale, offer: sector.offer, founded, clientsCount, city: place.city });
    const peopleCount = rng.int(4, size.peoplePerCompany * 2 - 4);
    companies.push({
      index, name, domain, locale, industry: sector.industry,
      description: text.description, isEnglishDescription: text.isEnglish,
      city: place.city, region: place.region, country: words.country,
      employeeRange: EMPLOYEE_RANGES[sizeRank], employeeCount: rng.int(low, high),
      revenueRange: REVENUE_RANGES[Math.min(REVENUE_RANGES.length - 1, sizeRank + rng.int(0, 1))],
      clientsCount, founded, linkedinUrl: `https://www.linkedin.com/company/${asciiSlug(name)}`,
      coverage: companyCoverage(rng), firstPerson: people.length, peopleCount,
    });

    const usedEmails = new Set<string>();
    for (let rank = 0; rank < peopleCount; rank++) {
      // First-name lists alternate masculine and feminine names.
      const nameIndex = rng.int(0, words.firstNames.length - 1);
      const gender: Gender = nameIndex % 2 === 0 ? 'm' : 'f';
      const firstName = words.firstNames[nameIndex];
      const lastName = genderedSurname(rng.pick(words.lastNames), gender, locale);
      const first = asciiSlug(firstName).replace(/-/g, '');
      const last = asciiSlug(lastName).replace(/-/g, '');
      const patternRoll = rng.next();
      let local = patternRoll < 0.75 ? `${first}.${last}` : patternRoll < 0.88 ? `${first[0]}${last}` : patternRoll < 0.95 ? first : `${first}${last[0]}`;
      for (let n = 2; usedEmails.has(local); n++) local = `${local.replace(/\d+$/, '')}${n}`;
      usedEmails.add(local);
      const title = generateTitle(rng, seniorityForRank(rng, rank), locale, gender);
      const personIndex = people.length;
      const roleStartMs = nowMs - rng.int(30, 365 * 9) * DAY_MS;
      people.push({
        index: personIndex, firstName, lastName, fullName: `${firstName} ${lastName}`,
        email: `${local}@${domain}`, title: title.title, seniority: title.seniority, isEnglishTitle: title.isEnglish,
        company: index,
        linkedinUrl: `https://www.linkedin.com/in/${asciiSlug(`${firstName}-${lastName}`)}-${(personIndex * 7919 + seed).toString(36)}`,
        roleStart: isoDate(new Date(roleStartMs)),
        location: locationOf(rng.chance(0.8) ? place : rng.pick(words.cities), words.country),
        coverage: personCoverage(rng),
        postCount: rng.chance(0.25) ? 0 : rng.int(1, 5),
      });
    }
  }
  return { seed, now, companies, people };
}
