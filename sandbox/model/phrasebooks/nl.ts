import type { Phrasebook } from './phrasebook.ts';

export const nl: Phrasebook = {
  summary: (f) =>
    `${f.person} is ${f.title} bij ${f.company}. In deze rol is ${f.firstName} verantwoordelijk voor de beslissingen die de groei van het bedrijf in de sector ${f.industry ?? 'van de eigen markt'} bepalen.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`Ik las uw bericht over "${topic}" – waarom schreef u daar juist nu over?`, `Uw bericht over "${topic}" viel me op: wat betekent dat voor de plannen van ${f.company}?`, `U schreef over "${topic}". Hoe gaat uw team daar dit jaar mee om?`][i % 3]
      : [`Hoe verandert uw rol als ${f.title} bij ${f.company} dit jaar?`, `Wat is de grootste prioriteit voor ${f.company} in de komende maanden?`, `Hoe meet uw team het succes in de sector ${f.industry ?? 'van uw markt'}?`][i % 3],
  postSummary: (author, topic) => `${author} schrijft over "${topic}" en deelt de visie van het team.`,
  problems: (f) => [
    `Het helpt zijn klanten om de kosten van hun werk in de sector ${f.industry ?? 'van hun markt'} te verlagen.`,
    'Het bespaart de tijd die teams verliezen aan handmatige taken.',
    'Het geeft klanten een duidelijk beeld van de gegevens die zij voor hun beslissingen nodig hebben.',
    'Het verkleint het risico op fouten in de dagelijkse processen van zijn klanten.',
  ],
  services: (f) => [
    `Het belangrijkste aanbod van ${f.company} in de sector ${f.industry ?? 'van diensten'}`,
    'De implementatie en onboarding van nieuwe klanten',
    'De ondersteuning en training voor de teams van zijn klanten',
    'Het advies over de processen van zijn klanten',
  ],
  icp: (f) => [
    `Middelgrote bedrijven in de sector ${f.industry ?? 'van de eigen markt'}`,
    'Grote ondernemingen met teams in meerdere landen',
    'Snelgroeiende start-ups die moeten opschalen',
    'Overheidsinstellingen en organisaties met strenge eisen',
  ],
  synergy: (i, f) =>
    `${f.product} kan ${f.company} ondersteunen met ${f.feature(i)}, wat past bij het werk van het team aan ${['de kosten', 'de snelheid', 'de kwaliteit', 'de groei'][i % 4]}.`,
  discovery: (i, f) =>
    [
      `Hoe pakt ${f.company} dit vandaag aan, en waar zou ${f.product} het werk kunnen vereenvoudigen?`,
      `Welk team bij ${f.company} zou ${f.feature(0)} van ${f.product} als eerste gebruiken?`,
      `Wat zou ${f.product} in de eerste drie maanden moeten laten zien om voor u een succes te zijn?`,
    ][i % 3],
  insights: (f) => [
    `${f.company} concurreert met de gevestigde spelers in de sector ${f.industry ?? 'van de eigen markt'} op de kwaliteit van de dienstverlening.`,
    'Het bedrijf kan sneller groeien dan de markt als het de focus op zijn belangrijkste klanten houdt.',
    'De positie is sterk waar de klanten lokale ondersteuning en expertise nodig hebben.',
    'Het grootste risico voor het bedrijf is de prijsdruk van grotere concurrenten.',
  ],
  newsSummary: (company, title) => `Nieuws over ${company}: "${title}". Het is een belangrijk signaal voor de plannen van het bedrijf.`,
  companyPostSummary: (company, topic) => `${company} schrijft over "${topic}" in een bericht voor de klanten en partners.`,
  generic: (field, i) => `Punt ${i + 1} over ${field}, op basis van de gegevens van het verzoek.`,
};
