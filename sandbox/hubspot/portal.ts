// The state of the HubSpot stand-in: portals, their contact properties and
// groups, contacts, notes, and the OAuth codes and tokens that reach them.
// Shapes follow HubSpot's own OpenAPI files (HubSpot/HubSpot-public-api-spec-collection:
// PublicApiSpecs/CRM/Properties/…/v3, CRM/Contacts/…/v3, CRM/Notes/…/v3, Auth/Oauth/…/v1).
import { randomBytes } from 'node:crypto';
import type { World } from '../provider-world/world.ts';

export type PropertyType = 'string' | 'number' | 'bool' | 'enumeration' | 'date' | 'datetime';

export interface PropertyOption {
  label: string;
  value: string;
  displayOrder: number;
  hidden: boolean;
}

export interface Property {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: string;
  groupName: string;
  description: string;
  options: PropertyOption[];
  displayOrder: number;
  hidden: boolean;
  formField: boolean;
  /** HubSpot's own properties say `hubspotDefined: true`; an app's never do. */
  hubspotDefined: boolean;
  /** For HubSpot's own properties: the value is calculated by a HubSpot process (scores, counts, rollups). */
  calculated: boolean;
  /** Every record's value is unique (an id of another system, say). */
  hasUniqueValue: boolean;
  /** `modificationMetadata.readOnlyValue`: nobody sets the value through the API or the app (record ids, dates HubSpot keeps, calculated values). */
  readOnlyValue: boolean;
  /** The object a value points at (`COMPANY`, `OWNER` …), for properties that hold another record's id. */
  referencedObjectType?: string;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface PropertyGroup {
  name: string;
  label: string;
  displayOrder: number;
  archived: boolean;
}

export interface Contact {
  id: string;
  properties: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  /** What search sees: a copy taken `searchLagMs` after each write (HubSpot's index lags behind writes). */
  indexed: Record<string, string>;
}

export interface Note {
  id: string;
  properties: Record<string, string>;
  /** Contact ids this note is associated with (association type 202, note → contact). */
  contactIds: string[];
  createdAt: string;
}

export interface Portal {
  portalId: number;
  /** The address the consent page shows; the installing user. */
  userEmail: string;
  userId: number;
  properties: Map<string, Property>;
  groups: Map<string, PropertyGroup>;
  contacts: Map<string, Contact>;
  notes: Map<string, Note>;
  nextObjectId: number;
}

export interface AuthCode {
  code: string;
  portalId: number;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

export interface RefreshToken {
  token: string;
  portalId: number;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}

export interface AccessToken {
  token: string;
  portalId: number;
  clientId: string;
  scopes: string[];
  refreshToken: string;
  expiresAt: number;
}

export const SEED_PORTAL_ID = 4_000_001;

type DefaultProperty = Pick<Property, 'name' | 'label' | 'type' | 'fieldType' | 'groupName'> & Partial<Pick<Property, 'calculated' | 'hasUniqueValue' | 'readOnlyValue' | 'referencedObjectType' | 'hidden'>>;

/**
 * HubSpot's contact properties the seed needs (a real portal has a few
 * hundred; these are the ones a sync touches, and the kinds of number a
 * portal holds: scores HubSpot calculates (`hubspotscore` is a
 * `calculation_score` field), counts, and ids HubSpot sets, which are numbers
 * but never a score).
 */
const DEFAULT_PROPERTIES: DefaultProperty[] = [
  { name: 'email', label: 'Email', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  { name: 'firstname', label: 'First Name', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  { name: 'lastname', label: 'Last Name', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  { name: 'jobtitle', label: 'Job Title', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  { name: 'company', label: 'Company Name', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  { name: 'website', label: 'Website URL', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  { name: 'industry', label: 'Industry', type: 'string', fieldType: 'text', groupName: 'contactinformation' },
  { name: 'hubspotscore', label: 'HubSpot Score', type: 'number', fieldType: 'calculation_score', groupName: 'contactinformation', calculated: true, readOnlyValue: true },
  { name: 'hs_predictivecontactscore_v2', label: 'Likelihood to close', type: 'number', fieldType: 'number', groupName: 'contactinformation', calculated: true, readOnlyValue: true },
  { name: 'num_notes', label: 'Number of Sales Activities', type: 'number', fieldType: 'number', groupName: 'sales_properties', calculated: true, readOnlyValue: true },
  { name: 'hs_object_id', label: 'Record ID', type: 'number', fieldType: 'number', groupName: 'contactinformation', readOnlyValue: true },
  { name: 'hs_created_by_user_id', label: 'Created by user ID', type: 'number', fieldType: 'number', groupName: 'contactinformation', readOnlyValue: true },
  { name: 'associatedcompanyid', label: 'Primary Associated Company ID', type: 'number', fieldType: 'number', groupName: 'contactinformation', referencedObjectType: 'COMPANY' },
  { name: 'hs_merged_object_ids_count', label: 'Merged record IDs count', type: 'number', fieldType: 'number', groupName: 'contactinformation', hidden: true, calculated: true, readOnlyValue: true },
  { name: 'createdate', label: 'Create Date', type: 'datetime', fieldType: 'date', groupName: 'contactinformation', readOnlyValue: true },
  { name: 'lastmodifieddate', label: 'Last Modified Date', type: 'datetime', fieldType: 'date', groupName: 'contactinformation', readOnlyValue: true },
];

const DEFAULT_GROUPS: PropertyGroup[] = [
  { name: 'contactinformation', label: 'Contact information', displayOrder: 0, archived: false },
  { name: 'sales_properties', label: 'Sales properties', displayOrder: 1, archived: false },
];

export interface SeedContact {
  email?: string | null;
  firstname?: string;
  lastname?: string;
  jobtitle?: string;
  company?: string;
  website?: string;
  hubspotscore?: number | null;
  [property: string]: string | number | null | undefined;
}

export function newPortal(portalId: number, userEmail: string, now: Date): Portal {
  const at = now.toISOString();
  const portal: Portal = {
    portalId,
    userEmail,
    userId: 100 + (portalId % 1000),
    properties: new Map(),
    groups: new Map(DEFAULT_GROUPS.map((group) => [group.name, { ...group }])),
    contacts: new Map(),
    notes: new Map(),
    nextObjectId: 101,
  };
  for (const [index, property] of DEFAULT_PROPERTIES.entries()) {
    portal.properties.set(property.name, {
      calculated: false, hasUniqueValue: false, readOnlyValue: false, hidden: false,
      ...property, description: '', options: [], displayOrder: index, formField: true, hubspotDefined: true, archived: false, createdAt: at, updatedAt: at,
    });
  }
  return portal;
}

export function addContact(portal: Portal, seed: SeedContact, now: Date): Contact {
  const id = String(portal.nextObjectId++);
  const at = now.toISOString();
  const properties: Record<string, string> = { hs_object_id: id, createdate: at, lastmodifieddate: at };
  for (const [name, value] of Object.entries(seed)) if (value !== null && value !== undefined) properties[name] = String(value);
  const contact: Contact = { id, properties, createdAt: at, updatedAt: at, indexed: { ...properties } };
  portal.contacts.set(id, contact);
  return contact;
}

/**
 * The seeded portal: people of the provider world (their work e-mails, so
 * that research finds them), scores spread from 99 down, and the contacts a
 * real portal holds besides: free-mail and role addresses above the
 * threshold, contacts without e-mail, and people below it.
 */
export function seedPortal(world: World, now: Date, options: { people?: number } = {}): Portal {
  const portal = newPortal(SEED_PORTAL_ID, 'owner@portal.example', now);
  const people = world.samplePeople({ knownTo: 'both' }, options.people ?? 40);
  for (const [index, person] of people.entries()) {
    const company = world.companies[person.company]!;
    // 99, 97, 95 … down to below the default threshold of 70 after 15 people.
    const score = Math.max(5, 99 - index * 2);
    addContact(portal, {
      email: person.email, firstname: person.firstName, lastname: person.lastName, jobtitle: person.title,
      company: company.name, website: `https://${company.domain}`, hubspotscore: score,
    }, now);
  }
  const specialCompany = world.companies[people[0]?.company ?? 0]!;
  const extras: SeedContact[] = [
    { email: 'jamie.rivera@gmail.com', firstname: 'Jamie', lastname: 'Rivera', hubspotscore: 98 },
    { email: 'sam.okafor@outlook.com', firstname: 'Sam', lastname: 'Okafor', hubspotscore: 94 },
    { email: `info@${specialCompany.domain}`, company: specialCompany.name, hubspotscore: 96 },
    { email: `sales@${specialCompany.domain}`, company: specialCompany.name, hubspotscore: 90 },
    { email: null, firstname: 'Noemail', lastname: 'Person', company: specialCompany.name, hubspotscore: 97 },
    { email: 'not-an-address', firstname: 'Broken', lastname: 'Address', hubspotscore: 93 },
    { email: `no.score.${specialCompany.index}@${specialCompany.domain}`, firstname: 'Without', lastname: 'Score' },
  ];
  for (const extra of extras) addContact(portal, extra, now);
  return portal;
}

export const newSecret = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;
