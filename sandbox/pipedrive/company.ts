// The state of the Pipedrive stand-in: a company with its user, person
// fields, persons, notes and saved filters, and the OAuth codes and tokens
// that reach it. Shapes follow Pipedrive's OpenAPI files (v1: `getPersonFields`
// field objects with `id`, `key`, `name`, `field_type`, `options`,
// `edit_flag`, `active_flag`; `getNotes` notes; `getFilters` filters. v2:
// `getPersons` persons with `emails[]` of { value, primary, label } and
// `custom_fields` keyed by the field's 40-character hash key).
import { createHash, randomBytes } from 'node:crypto';
import type { World } from '../provider-world/world.ts';

export interface FieldOption {
  id: number;
  label: string;
}

export interface PersonField {
  id: number;
  key: string;
  name: string;
  field_type: string;
  options: FieldOption[] | null;
  edit_flag: boolean;
  active_flag: boolean;
  mandatory_flag: boolean;
  add_time: string;
}

export interface Person {
  id: number;
  name: string;
  first_name: string | null;
  last_name: string | null;
  emails: Array<{ value: string; primary: boolean; label: string }>;
  owner_id: number;
  add_time: string;
  update_time: string;
  /** By hash key; numbers for double fields, option ids for enums, YYYY-MM-DD for dates. */
  custom: Record<string, unknown>;
  /** Deleted by a user: kept (Pipedrive keeps deleted persons a while) but listed nowhere and never written again. */
  is_deleted?: boolean;
}

export interface Note {
  id: number;
  content: string;
  person_id: number;
  user_id: number;
  /** UTC, "YYYY-MM-DD HH:MM:SS", as Pipedrive writes it. */
  add_time: string;
  update_time: string;
}

export interface Filter {
  id: number;
  name: string;
  type: string;
  conditions: unknown;
  user_id: number;
  add_time: string;
}

export interface Company {
  companyId: number;
  domain: string;
  user: { id: number; name: string; email: string; isAdmin: boolean };
  fields: Map<number, PersonField>;
  persons: Map<number, Person>;
  notes: Map<number, Note>;
  filters: Map<number, Filter>;
  nextId: { field: number; option: number; person: number; note: number; filter: number };
}

export const SEED_COMPANY_ID = 7_000_001;

/** "YYYY-MM-DD HH:MM:SS" (v1) and "YYYY-MM-DDTHH:MM:SSZ" (v2), both UTC to the second. */
export const v1Time = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ');
export const v2Time = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;

/** A custom field's key: 40 hexadecimal characters, as Pipedrive's. */
const hashKey = (companyId: number, id: number) => createHash('sha1').update(`${companyId}:${id}:${randomBytes(4).toString('hex')}`).digest('hex');

/** Person fields every company has (a few of Pipedrive's; their keys are names, not hashes, and an app cannot edit them). */
const DEFAULT_FIELDS: Array<[string, string, string]> = [
  ['name', 'Name', 'varchar'], ['first_name', 'First name', 'varchar'], ['last_name', 'Last name', 'varchar'], ['email', 'Email', 'varchar'],
  ['phone', 'Phone', 'phone'], ['org_id', 'Organization', 'org'], ['owner_id', 'Owner', 'user'], ['add_time', 'Person created', 'date'],
  ['update_time', 'Update time', 'date'], ['open_deals_count', 'Open deals', 'int'],
];

export function addField(company: Company, input: { name: string; field_type: string; options?: Array<{ label: string }> | null; key?: string }, now: Date): PersonField {
  const id = company.nextId.field++;
  const isCustom = input.key === undefined;
  const field: PersonField = {
    id, key: input.key ?? hashKey(company.companyId, id), name: input.name, field_type: input.field_type,
    options: input.options ? input.options.map((option) => ({ id: company.nextId.option++, label: option.label })) : null,
    edit_flag: isCustom, active_flag: true, mandatory_flag: false, add_time: v1Time(now),
  };
  company.fields.set(id, field);
  return field;
}

export function newCompany(companyId: number, userEmail: string, now: Date): Company {
  const company: Company = {
    companyId, domain: `company-${companyId}`,
    user: { id: 1000 + (companyId % 1000), name: 'Sandbox Admin', email: userEmail, isAdmin: true },
    fields: new Map(), persons: new Map(), notes: new Map(), filters: new Map(),
    nextId: { field: 9001, option: 101, person: 1, note: 1, filter: 1 },
  };
  for (const [key, name, type] of DEFAULT_FIELDS) addField(company, { key, name, field_type: type }, now);
  return company;
}

export const fieldByName = (company: Company, name: string) => [...company.fields.values()].find((field) => field.name === name && field.active_flag);

export interface SeedPerson {
  name?: string;
  email?: string | null;
  /** Custom field values by field name (the seeded company's `Lead score`, `Employees` …). */
  values?: Record<string, unknown>;
}

export function addPerson(company: Company, seed: SeedPerson, now: Date): Person {
  const id = company.nextId.person++;
  const [first, ...rest] = (seed.name ?? '').split(' ');
  const custom: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(seed.values ?? {})) {
    const field = fieldByName(company, name);
    if (!field) throw new Error(`no person field named ${name}`);
    if (value !== null && value !== undefined) custom[field.key] = value;
  }
  const person: Person = {
    id, name: seed.name ?? seed.email ?? `Person ${id}`, first_name: first || null, last_name: rest.join(' ') || null,
    emails: seed.email ? [{ value: seed.email, primary: true, label: 'work' }] : [], owner_id: company.user.id, add_time: v2Time(now), update_time: v2Time(now), custom,
  };
  company.persons.set(id, person);
  return person;
}

/**
 * The seeded company: a few custom fields a real one has (a number an admin
 * uses as a lead score, since Pipedrive has none of its own, a monetary
 * value, texts a write rule can fill, an option field), people of the
 * provider world (their work e-mails, so research finds them) with scores
 * from 99 down, and the persons a real company holds besides: free-mail and
 * role addresses above the threshold, persons without e-mail or score.
 */
export function seedCompany(world: World, now: Date, options: { people?: number } = {}): Company {
  const company = newCompany(SEED_COMPANY_ID, 'admin@company.example', now);
  addField(company, { name: 'Lead score', field_type: 'double' }, now);
  addField(company, { name: 'Deal potential', field_type: 'monetary' }, now);
  addField(company, { name: 'Employees', field_type: 'varchar' }, now);
  addField(company, { name: 'Background', field_type: 'text' }, now);
  addField(company, { name: 'Lead source', field_type: 'enum', options: [{ label: 'Web' }, { label: 'Event' }] }, now);
  const people = world.samplePeople({ knownTo: 'both' }, options.people ?? 40);
  for (const [index, person] of people.entries()) {
    addPerson(company, { name: `${person.firstName} ${person.lastName}`, email: person.email, values: { 'Lead score': Math.max(5, 99 - index * 2) } }, now);
  }
  const special = world.companies[people[0]?.company ?? 0]!;
  const extras: SeedPerson[] = [
    { name: 'Jamie Rivera', email: 'jamie.rivera@gmail.com', values: { 'Lead score': 98 } },
    { name: 'Sam Okafor', email: 'sam.okafor@outlook.com', values: { 'Lead score': 94 } },
    { name: `Info ${special.name}`, email: `info@${special.domain}`, values: { 'Lead score': 96 } },
    { name: 'Noemail Person', email: null, values: { 'Lead score': 97 } },
    { name: 'Without Score', email: `no.score.${special.index}@${special.domain}` },
  ];
  for (const extra of extras) addPerson(company, extra, now);
  return company;
}

export const newSecret = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;
