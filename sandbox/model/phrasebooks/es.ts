import type { Phrasebook } from './phrasebook.ts';

export const es: Phrasebook = {
  summary: (f) =>
    `${f.person} es ${f.title} en ${f.company}. En este puesto, ${f.firstName} es responsable de las decisiones que marcan el crecimiento de la empresa en el sector ${f.industry ?? 'de su mercado'}.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`Leí su publicación sobre «${topic}»: ¿qué le llevó a escribir sobre ello ahora?`, `Su publicación sobre «${topic}» me llamó la atención: ¿cómo afecta a los planes de ${f.company}?`, `Usted escribió sobre «${topic}». ¿Cómo lo está gestionando su equipo este año?`][i % 3]
      : [`¿Cómo está cambiando su puesto de ${f.title} en ${f.company} este año?`, `¿Cuál es la mayor prioridad de ${f.company} para los próximos meses?`, `¿Cómo mide su equipo el éxito en el sector ${f.industry ?? 'de su mercado'}?`][i % 3],
  postSummary: (author, topic) => `${author} escribe sobre «${topic}» y comparte el punto de vista de su equipo.`,
  problems: (f) => [
    `Ayuda a sus clientes a reducir los costes de su trabajo en el sector ${f.industry ?? 'de su mercado'}.`,
    'Ahorra el tiempo que los equipos pierden en tareas manuales.',
    'Da a los clientes una visión clara de los datos que necesitan para sus decisiones.',
    'Reduce el riesgo de errores en las operaciones diarias de sus clientes.',
  ],
  services: (f) => [
    `La oferta principal de ${f.company} en el sector ${f.industry ?? 'de servicios'}`,
    'La implantación y la incorporación de nuevos clientes',
    'El soporte y la formación para los equipos de sus clientes',
    'La consultoría sobre los procesos de sus clientes',
  ],
  icp: (f) => [
    `Las empresas medianas del sector ${f.industry ?? 'de su mercado'}`,
    'Las grandes empresas con equipos en varios países',
    'Las start-ups de rápido crecimiento que necesitan escalar',
    'Las instituciones públicas y las organizaciones con requisitos estrictos',
  ],
  synergy: (i, f) =>
    `${f.product} puede apoyar a ${f.company} con ${f.feature(i)}, lo que encaja con el trabajo del equipo en ${['los costes', 'la rapidez', 'la calidad', 'el crecimiento'][i % 4]}.`,
  discovery: (i, f) =>
    [
      `¿Cómo lo gestiona hoy ${f.company} y dónde podría ${f.product} facilitar el trabajo?`,
      `¿Qué equipo de ${f.company} usaría primero ${f.feature(0)} de ${f.product}?`,
      `¿Qué tendría que demostrar ${f.product} en los tres primeros meses para que sea un éxito para ustedes?`,
    ][i % 3],
  insights: (f) => [
    `${f.company} compite con los actores establecidos del sector ${f.industry ?? 'de su mercado'} por la calidad de su servicio.`,
    'La empresa puede crecer más rápido que el mercado si mantiene el foco en sus principales clientes.',
    'Su posición es fuerte donde los clientes necesitan apoyo local y experiencia.',
    'El principal riesgo para la empresa es la presión de los precios de los competidores más grandes.',
  ],
  newsSummary: (company, title) => `Noticia sobre ${company}: «${title}». Es una señal importante para los planes de la empresa.`,
  companyPostSummary: (company, topic) => `${company} escribe sobre «${topic}» en una publicación para sus clientes y sus socios.`,
  generic: (field, i) => `Punto ${i + 1} sobre ${field}, según los datos de la solicitud.`,
};
