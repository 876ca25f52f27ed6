import type { Phrasebook } from './phrasebook.ts';

export const pl: Phrasebook = {
  summary: (f) =>
    `${f.person} pracuje jako ${f.title} w firmie ${f.company}. W tej roli ${f.firstName} odpowiada za decyzje, które kształtują rozwój firmy w branży ${f.industry ?? 'swojego rynku'}.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`Przeczytałem Pana/Pani post o „${topic}” – co skłoniło do napisania o tym teraz?`, `Post o „${topic}” zwrócił moją uwagę: jak to wpływa na plany firmy ${f.company}?`, `Pisał Pan/Pisała Pani o „${topic}”. Jak zespół radzi sobie z tym w tym roku?`][i % 3]
      : [`Jak zmienia się rola ${f.title} w firmie ${f.company} w tym roku?`, `Co jest największym priorytetem dla firmy ${f.company} w najbliższych miesiącach?`, `Jak zespół mierzy sukces w branży ${f.industry ?? 'swojego rynku'}?`][i % 3],
  postSummary: (author, topic) => `${author} pisze o „${topic}” i dzieli się punktem widzenia zespołu.`,
  problems: (f) => [
    `Pomaga klientom obniżyć koszty pracy w branży ${f.industry ?? 'swojego rynku'}.`,
    'Oszczędza czas, który zespoły tracą na ręczne zadania.',
    'Daje klientom jasny obraz danych, których potrzebują do decyzji.',
    'Zmniejsza ryzyko błędów w codziennej pracy klientów.',
  ],
  services: (f) => [
    `Główna oferta firmy ${f.company} w branży ${f.industry ?? 'usług'}`,
    'Wdrożenie i wprowadzenie nowych klientów',
    'Wsparcie i szkolenia dla zespołów klientów',
    'Doradztwo w zakresie procesów klientów',
  ],
  icp: (f) => [
    `Średnie firmy w branży ${f.industry ?? 'swojego rynku'}`,
    'Duże przedsiębiorstwa z zespołami w kilku krajach',
    'Szybko rosnące start-upy, które muszą się skalować',
    'Instytucje publiczne i organizacje o surowych wymaganiach',
  ],
  synergy: (i, f) =>
    `${f.product} może wesprzeć firmę ${f.company} dzięki funkcji ${f.feature(i)}, co pasuje do pracy zespołu nad ${['kosztami', 'szybkością', 'jakością', 'wzrostem'][i % 4]}.`,
  discovery: (i, f) =>
    [
      `Jak firma ${f.company} radzi sobie z tym dzisiaj i gdzie ${f.product} mógłby ułatwić pracę?`,
      `Który zespół w firmie ${f.company} jako pierwszy użyłby funkcji ${f.feature(0)} w ${f.product}?`,
      `Co ${f.product} musiałby pokazać w pierwszych trzech miesiącach, aby był to dla Państwa sukces?`,
    ][i % 3],
  insights: (f) => [
    `Firma ${f.company} konkuruje z uznanymi graczami w branży ${f.industry ?? 'swojego rynku'} jakością obsługi.`,
    'Firma może rosnąć szybciej niż rynek, jeśli utrzyma koncentrację na głównych klientach.',
    'Jej pozycja jest silna tam, gdzie klienci potrzebują lokalnego wsparcia i wiedzy.',
    'Głównym ryzykiem dla firmy jest presja cenowa ze strony większych konkurentów.',
  ],
  newsSummary: (company, title) => `Wiadomość o firmie ${company}: „${title}”. To ważny sygnał dla planów firmy.`,
  companyPostSummary: (company, topic) => `${company} pisze o „${topic}” w poście dla swoich klientów i partnerów.`,
  generic: (field, i) => `Punkt ${i + 1} dotyczący ${field}, na podstawie danych z zapytania.`,
};
