import type { Phrasebook } from './phrasebook.ts';

export const it: Phrasebook = {
  summary: (f) =>
    `${f.person} è ${f.title} presso ${f.company}. In questo ruolo, ${f.firstName} è responsabile delle decisioni che determinano la crescita dell'azienda nel settore ${f.industry ?? 'del suo mercato'}.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`Ho letto il suo post su «${topic}»: che cosa l'ha spinta a scriverne proprio adesso?`, `Il suo post su «${topic}» ha attirato la mia attenzione: come influisce sui piani di ${f.company}?`, `Lei ha scritto su «${topic}». Come lo sta gestendo il suo team quest'anno?`][i % 3]
      : [`Come sta cambiando il suo ruolo di ${f.title} presso ${f.company} quest'anno?`, `Qual è la priorità più grande per ${f.company} nei prossimi mesi?`, `Come misura il successo il suo team nel settore ${f.industry ?? 'del vostro mercato'}?`][i % 3],
  postSummary: (author, topic) => `${author} scrive su «${topic}» e condivide il punto di vista del suo team.`,
  problems: (f) => [
    `Aiuta i suoi clienti a ridurre i costi del loro lavoro nel settore ${f.industry ?? 'del loro mercato'}.`,
    'Fa risparmiare il tempo che i team perdono nelle attività manuali.',
    'Dà ai clienti una visione chiara dei dati che servono per le loro decisioni.',
    'Riduce il rischio di errori nelle attività quotidiane dei suoi clienti.',
  ],
  services: (f) => [
    `L'offerta principale di ${f.company} nel settore ${f.industry ?? 'dei servizi'}`,
    "L'implementazione e l'avviamento per i nuovi clienti",
    "L'assistenza e la formazione per i team dei suoi clienti",
    'La consulenza sui processi dei suoi clienti',
  ],
  icp: (f) => [
    `Le aziende di medie dimensioni nel settore ${f.industry ?? 'del suo mercato'}`,
    'Le grandi imprese con team in diversi paesi',
    'Le start-up in rapida crescita che devono scalare',
    'Le istituzioni pubbliche e le organizzazioni con requisiti rigorosi',
  ],
  synergy: (i, f) =>
    `${f.product} può aiutare ${f.company} con ${f.feature(i)}, che si adatta al lavoro del team su ${['i costi', 'la velocità', 'la qualità', 'la crescita'][i % 4]}.`,
  discovery: (i, f) =>
    [
      `Come gestisce oggi questo aspetto ${f.company}, e dove potrebbe ${f.product} semplificare il lavoro?`,
      `Quale team di ${f.company} userebbe per primo ${f.feature(0)} di ${f.product}?`,
      `Che cosa dovrebbe dimostrare ${f.product} nei primi tre mesi per essere un successo per voi?`,
    ][i % 3],
  insights: (f) => [
    `${f.company} compete con gli operatori affermati del settore ${f.industry ?? 'del suo mercato'} sulla qualità del servizio.`,
    "L'azienda può crescere più del mercato se mantiene l'attenzione sui suoi clienti principali.",
    'La sua posizione è forte dove i clienti hanno bisogno di supporto locale e di competenza.',
    "Il rischio principale per l'azienda è la pressione sui prezzi dei concorrenti più grandi.",
  ],
  newsSummary: (company, title) => `Notizia su ${company}: «${title}». È un segnale importante per i piani dell'azienda.`,
  companyPostSummary: (company, topic) => `${company} scrive su «${topic}» in un post per i suoi clienti e i suoi partner.`,
  generic: (field, i) => `Punto ${i + 1} su ${field}, in base ai dati della richiesta.`,
};
