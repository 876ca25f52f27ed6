import type { Phrasebook } from './phrasebook.ts';

export const fr: Phrasebook = {
  summary: (f) =>
    `${f.person} est ${f.title} chez ${f.company}. Dans ce rôle, ${f.firstName} est responsable des décisions qui façonnent la croissance de l'entreprise dans le secteur ${f.industry ?? 'de son marché'}.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`J'ai lu votre publication sur « ${topic} » – qu'est-ce qui vous a poussé à en parler maintenant ?`, `Votre publication sur « ${topic} » a retenu mon attention : quel est son effet sur les projets de ${f.company} ?`, `Vous avez écrit sur « ${topic} ». Comment votre équipe le gère-t-elle cette année ?`][i % 3]
      : [`Comment votre rôle de ${f.title} chez ${f.company} évolue-t-il cette année ?`, `Quelle est la plus grande priorité de ${f.company} pour les prochains mois ?`, `Comment votre équipe mesure-t-elle le succès dans le secteur ${f.industry ?? 'de votre marché'} ?`][i % 3],
  postSummary: (author, topic) => `${author} écrit sur « ${topic} » et partage le point de vue de son équipe.`,
  problems: (f) => [
    `Elle aide ses clients à réduire les coûts de leur travail dans le secteur ${f.industry ?? 'de leur marché'}.`,
    'Elle fait gagner le temps que les équipes perdent sur des tâches manuelles.',
    'Elle donne aux clients une vue claire des données dont ils ont besoin pour leurs décisions.',
    'Elle réduit le risque des erreurs dans les opérations quotidiennes de ses clients.',
  ],
  services: (f) => [
    `L'offre principale de ${f.company} dans le secteur ${f.industry ?? 'des services'}`,
    'La mise en place et l\'accompagnement des nouveaux clients',
    'Le support et la formation pour les équipes de ses clients',
    'Le conseil sur les processus de ses clients',
  ],
  icp: (f) => [
    `Les entreprises de taille moyenne dans le secteur ${f.industry ?? 'de son marché'}`,
    'Les grandes entreprises avec des équipes dans plusieurs pays',
    'Les start-ups en forte croissance qui doivent passer à l\'échelle',
    'Les institutions publiques et les organisations aux exigences strictes',
  ],
  synergy: (i, f) =>
    `${f.product} peut aider ${f.company} avec ${f.feature(i)}, ce qui correspond au travail de l'équipe sur ${['les coûts', 'la rapidité', 'la qualité', 'la croissance'][i % 4]}.`,
  discovery: (i, f) =>
    [
      `Comment ${f.company} gère-t-elle cela aujourd'hui, et où ${f.product} pourrait-il simplifier le travail ?`,
      `Quelle équipe de ${f.company} utiliserait en premier ${f.feature(0)} de ${f.product} ?`,
      `Que devrait montrer ${f.product} dans les trois premiers mois pour être un succès pour vous ?`,
    ][i % 3],
  insights: (f) => [
    `${f.company} est en concurrence avec les acteurs établis du secteur ${f.industry ?? 'de son marché'} sur la qualité de son service.`,
    'L\'entreprise peut croître plus vite que le marché si elle reste concentrée sur ses principaux clients.',
    'Sa position est forte là où les clients ont besoin d\'un soutien local et d\'une expertise.',
    'Le principal risque pour l\'entreprise est la pression sur les prix des grands concurrents.',
  ],
  newsSummary: (company, title) => `Actualité de ${company} : « ${title} ». C'est un signal important pour les projets de l'entreprise.`,
  companyPostSummary: (company, topic) => `${company} écrit sur « ${topic} » dans une publication pour ses clients et ses partenaires.`,
  generic: (field, i) => `Point ${i + 1} sur ${field}, d'après les données de la demande.`,
};
