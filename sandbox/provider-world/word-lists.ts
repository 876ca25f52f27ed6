// Word lists for the synthetic population. Locales drive names, cities,
// the top-level domain and the language of some titles and descriptions.

export type Locale = 'en-us' | 'en-gb' | 'de' | 'fr' | 'pl' | 'es' | 'nl' | 'it';

export interface LocaleWords {
  country: string;
  tlds: readonly string[];
  cities: readonly { city: string; region: string }[];
  /** Alternating masculine, feminine: an even index is a masculine name. */
  firstNames: readonly string[];
  lastNames: readonly string[];
}

export const LOCALES: Record<Locale, LocaleWords> = {
  'en-us': {
    country: 'united states', tlds: ['com', 'io', 'ai', 'co'],
    cities: [{ city: 'san francisco', region: 'california' }, { city: 'new york', region: 'new york' }, { city: 'austin', region: 'texas' }, { city: 'boston', region: 'massachusetts' }, { city: 'chicago', region: 'illinois' }, { city: 'seattle', region: 'washington' }, { city: 'denver', region: 'colorado' }],
    firstNames: ['James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth', 'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Chris', 'Karen', 'Daniel', 'Emily', 'Matthew', 'Ashley', 'Anthony', 'Megan'],
    lastNames: ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Miller', 'Davis', 'Wilson', 'Anderson', 'Taylor', 'Thomas', 'Moore', 'Jackson', 'Martin', 'Lee', 'Thompson', 'White', 'Harris', 'Clark', 'Lewis', 'Walker', 'Hall', 'Young', 'King'],
  },
  'en-gb': {
    country: 'united kingdom', tlds: ['co.uk', 'com', 'io'],
    cities: [{ city: 'london', region: 'england' }, { city: 'manchester', region: 'england' }, { city: 'edinburgh', region: 'scotland' }, { city: 'bristol', region: 'england' }, { city: 'leeds', region: 'england' }],
    firstNames: ['Oliver', 'Amelia', 'Harry', 'Olivia', 'George', 'Isla', 'Jack', 'Ava', 'Charlie', 'Emily', 'Alfie', 'Sophie', 'Freddie', 'Grace', 'Oscar', 'Lily'],
    lastNames: ['Evans', 'Roberts', 'Wright', 'Walker', 'Wood', 'Hughes', 'Green', 'Edwards', 'Turner', 'Hill', 'Cooper', 'Ward', 'Morris', 'Baker', 'Price', 'Bennett'],
  },
  de: {
    country: 'germany', tlds: ['de', 'com'],
    cities: [{ city: 'berlin', region: 'berlin' }, { city: 'munich', region: 'bavaria' }, { city: 'hamburg', region: 'hamburg' }, { city: 'cologne', region: 'north rhine-westphalia' }, { city: 'frankfurt', region: 'hesse' }],
    firstNames: ['Lukas', 'Anna', 'Jonas', 'Lea', 'Felix', 'Laura', 'Maximilian', 'Julia', 'Paul', 'Sophie', 'Tobias', 'Katharina', 'Stefan', 'Sabine', 'Jürgen', 'Claudia'],
    lastNames: ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Koch', 'Richter', 'Klein', 'Wolf', 'Neumann', 'Braun'],
  },
  fr: {
    country: 'france', tlds: ['fr', 'com'],
    cities: [{ city: 'paris', region: 'île-de-france' }, { city: 'lyon', region: 'auvergne-rhône-alpes' }, { city: 'toulouse', region: 'occitanie' }, { city: 'nantes', region: 'pays de la loire' }, { city: 'lille', region: 'hauts-de-france' }],
    firstNames: ['Louis', 'Camille', 'Hugo', 'Chloé', 'Jules', 'Léa', 'Arthur', 'Manon', 'Thomas', 'Inès', 'Nicolas', 'Émilie', 'Antoine', 'Claire', 'Julien', 'Amélie'],
    lastNames: ['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefèvre', 'Michel', 'Garcia', 'Roux'],
  },
  pl: {
    country: 'poland', tlds: ['pl', 'com'],
    cities: [{ city: 'warsaw', region: 'masovia' }, { city: 'kraków', region: 'lesser poland' }, { city: 'wrocław', region: 'lower silesia' }, { city: 'gdańsk', region: 'pomerania' }, { city: 'poznań', region: 'greater poland' }],
    firstNames: ['Jakub', 'Anna', 'Piotr', 'Katarzyna', 'Tomasz', 'Magdalena', 'Paweł', 'Agnieszka', 'Michał', 'Joanna', 'Krzysztof', 'Monika', 'Łukasz', 'Ewa', 'Marcin', 'Małgorzata'],
    lastNames: ['Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kowalczyk', 'Kamiński', 'Lewandowski', 'Zieliński', 'Szymański', 'Woźniak', 'Dąbrowski', 'Kozłowski', 'Jankowski', 'Mazur', 'Krawczyk', 'Piotrowski'],
  },
  es: {
    country: 'spain', tlds: ['es', 'com'],
    cities: [{ city: 'madrid', region: 'community of madrid' }, { city: 'barcelona', region: 'catalonia' }, { city: 'valencia', region: 'valencian community' }, { city: 'seville', region: 'andalusia' }],
    firstNames: ['Hugo', 'Lucía', 'Martín', 'Sofía', 'Pablo', 'María', 'Alejandro', 'Paula', 'Daniel', 'Carmen', 'Javier', 'Elena'],
    lastNames: ['García', 'Fernández', 'González', 'Rodríguez', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Martín', 'Jiménez', 'Ruiz'],
  },
  nl: {
    country: 'netherlands', tlds: ['nl', 'com', 'io'],
    cities: [{ city: 'amsterdam', region: 'north holland' }, { city: 'rotterdam', region: 'south holland' }, { city: 'utrecht', region: 'utrecht' }, { city: 'eindhoven', region: 'north brabant' }],
    firstNames: ['Daan', 'Emma', 'Sem', 'Julia', 'Lucas', 'Mila', 'Levi', 'Tess', 'Finn', 'Sara', 'Bram', 'Fleur'],
    lastNames: ['de Jong', 'Jansen', 'de Vries', 'van den Berg', 'Bakker', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'Bos', 'Vos'],
  },
  it: {
    country: 'italy', tlds: ['it', 'com'],
    cities: [{ city: 'milan', region: 'lombardy' }, { city: 'rome', region: 'lazio' }, { city: 'turin', region: 'piedmont' }, { city: 'bologna', region: 'emilia-romagna' }],
    firstNames: ['Leonardo', 'Sofia', 'Francesco', 'Giulia', 'Alessandro', 'Aurora', 'Lorenzo', 'Alice', 'Matteo', 'Ginevra', 'Marco', 'Chiara'],
    lastNames: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo'],
  },
};

/** Weighted so that most companies are English-speaking, as in a real B2B list. */
export const LOCALE_WEIGHTS: readonly [Locale, number][] = [
  ['en-us', 40], ['en-gb', 12], ['de', 12], ['fr', 10], ['pl', 10], ['es', 6], ['nl', 5], ['it', 5],
];

export const COMPANY_STEMS = ['Acme', 'Nordwind', 'Bluepeak', 'Brightline', 'Cobalt', 'Lumen', 'Vertex', 'Helix', 'Quantum', 'Solaris', 'Granite', 'Evergreen', 'Northstar', 'Silverleaf', 'Redwood', 'Ironclad', 'Clearwater', 'Skyward', 'Pinecrest', 'Orbital', 'Keystone', 'Meridian', 'Atlas', 'Beacon', 'Cascade', 'Summit', 'Falcon', 'Harbor', 'Juniper', 'Kestrel', 'Lighthouse', 'Maple', 'Nimbus', 'Onyx', 'Pioneer', 'Quarry', 'Riverbend', 'Sapphire', 'Tidal', 'Umbra', 'Vantage', 'Willow', 'Zenith', 'Amber', 'Birch', 'Cedar', 'Delta', 'Ember', 'Fjord', 'Glacier'];

export const INDUSTRIES = [
  { industry: 'software', suffixes: ['Software', 'Labs', 'Systems', 'Cloud', 'Tech'], offer: 'workflow automation software' },
  { industry: 'financial services', suffixes: ['Capital', 'Finance', 'Payments'], offer: 'payment and treasury services' },
  { industry: 'logistics', suffixes: ['Logistics', 'Freight', 'Transport'], offer: 'freight forwarding and warehousing' },
  { industry: 'marketing and advertising', suffixes: ['Media', 'Marketing', 'Digital'], offer: 'performance marketing campaigns' },
  { industry: 'hospital & health care', suffixes: ['Health', 'Care', 'Medical'], offer: 'patient scheduling and care coordination' },
  { industry: 'retail', suffixes: ['Store', 'Goods', 'Retail'], offer: 'consumer products sold online and in stores' },
  { industry: 'manufacturing', suffixes: ['Industries', 'Manufacturing', 'Works'], offer: 'precision industrial components' },
  { industry: 'information technology and services', suffixes: ['IT', 'Consulting', 'Solutions'], offer: 'managed IT services and cloud migration' },
  { industry: 'education', suffixes: ['Learning', 'Academy', 'Education'], offer: 'online courses for professionals' },
  { industry: 'real estate', suffixes: ['Properties', 'Estates', 'Realty'], offer: 'commercial property management' },
] as const;

export const EMPLOYEE_RANGES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000'] as const;
export const REVENUE_RANGES = ['<$1M', '$1M-$10M', '$10M-$25M', '$25M-$50M', '$50M-$100M', '$100M-$250M', '$250M-$500M', '$500M-$1B'] as const;
