import type { Phrasebook } from './phrasebook.ts';

export const de: Phrasebook = {
  summary: (f) =>
    `${f.person} ist ${f.title} bei ${f.company}. In dieser Rolle ist ${f.firstName} für die Entscheidungen verantwortlich, die das Wachstum des Unternehmens in der Branche ${f.industry ?? 'seines Marktes'} prägen.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`Ich habe Ihren Beitrag über „${topic}“ gelesen – was hat Sie dazu gebracht, jetzt darüber zu schreiben?`, `Ihr Beitrag über „${topic}“ ist mir aufgefallen: Wie wirkt sich das auf die Pläne von ${f.company} aus?`, `Sie haben über „${topic}“ geschrieben. Wie geht Ihr Team in diesem Jahr damit um?`][i % 3]
      : [`Wie verändert sich Ihre Rolle als ${f.title} bei ${f.company} in diesem Jahr?`, `Was ist die größte Priorität für ${f.company} in den nächsten Monaten?`, `Wie misst Ihr Team den Erfolg in der Branche ${f.industry ?? 'Ihres Marktes'}?`][i % 3],
  postSummary: (author, topic) => `${author} schreibt über „${topic}“ und teilt die Sicht des Teams.`,
  problems: (f) => [
    `Es hilft seinen Kunden, die Kosten ihrer Arbeit in der Branche ${f.industry ?? 'ihres Marktes'} zu senken.`,
    'Es spart die Zeit, die Teams mit manuellen Aufgaben verlieren.',
    'Es gibt den Kunden einen klaren Blick auf die Daten, die sie für ihre Entscheidungen brauchen.',
    'Es senkt das Risiko von Fehlern im täglichen Betrieb der Kunden.',
  ],
  services: (f) => [
    `Das zentrale Angebot von ${f.company} in der Branche ${f.industry ?? 'Dienstleistungen'}`,
    'Einführung und Onboarding für neue Kunden',
    'Support und Schulungen für die Teams der Kunden',
    'Beratung zu den Prozessen der Kunden',
  ],
  icp: (f) => [
    `Mittelständische Unternehmen in der Branche ${f.industry ?? 'ihres Marktes'}`,
    'Große Konzerne mit Teams in mehreren Ländern',
    'Schnell wachsende Start-ups, die skalieren müssen',
    'Öffentliche Einrichtungen und Organisationen mit strengen Anforderungen',
  ],
  synergy: (i, f) =>
    `${f.product} kann ${f.company} mit ${f.feature(i)} unterstützen, was zu der Arbeit des Teams an ${['den Kosten', 'der Geschwindigkeit', 'der Qualität', 'dem Wachstum'][i % 4]} passt.`,
  discovery: (i, f) =>
    [
      `Wie löst ${f.company} das heute, und wo könnte ${f.product} die Arbeit erleichtern?`,
      `Welches Team bei ${f.company} würde ${f.feature(0)} von ${f.product} zuerst nutzen?`,
      `Was müsste ${f.product} in den ersten drei Monaten zeigen, damit es für Sie ein Erfolg ist?`,
    ][i % 3],
  insights: (f) => [
    `${f.company} konkurriert mit den etablierten Anbietern in der Branche ${f.industry ?? 'seines Marktes'} über die Qualität des Service.`,
    'Das Unternehmen kann schneller als der Markt wachsen, wenn es sich auf seine wichtigsten Kunden konzentriert.',
    'Seine Position ist dort stark, wo die Kunden lokale Unterstützung und Fachwissen brauchen.',
    'Das größte Risiko für das Unternehmen ist der Preisdruck durch größere Wettbewerber.',
  ],
  newsSummary: (company, title) => `Neuigkeit über ${company}: „${title}“. Das ist ein wichtiges Signal für die Pläne des Unternehmens.`,
  companyPostSummary: (company, topic) => `${company} schreibt über „${topic}“ in einem Beitrag für die Kunden und Partner.`,
  generic: (field, i) => `Punkt ${i + 1} zu ${field}, auf der Grundlage der Daten der Anfrage.`,
};
