import { describe, expect, it } from 'vitest';
import { descriptionInEnglish, detectLanguage, titleInEnglish } from '../../sandbox/model/translations.ts';

describe('model sandbox translations', () => {
  it.each([
    ['Directrice Marketing', 'Marketing Director'],
    ['Dyrektor Sprzedaży', 'Sales Director'],
    ['Vertriebsleiter', 'Head of Sales'],
    ['Technischer Geschäftsführer', 'Chief Technology Officer'],
    ['Director de Ventas', 'Sales Director'],
    ['Directeur Verkoop', 'Sales Director'],
    ['Direttore Commerciale', 'Sales Director'],
    ['Jefa de Operaciones', 'Head of Operations'], // not in the phrase list: word by word
    ['VP of Sales', 'VP of Sales'], // already English: unchanged
  ])('renders the title %s as %s', (title, english) => {
    expect(titleInEnglish(title)).toBe(english);
  });

  it('keeps an English description and renders a foreign one in English from the known facts', () => {
    const english = 'Acme provides cloud software to mid-market companies. Founded in 2001 and headquartered in Austin.';
    expect(descriptionInEnglish({ name: 'Acme', description: english })).toBe(english);
    const rendered = descriptionInEnglish({
      name: 'Acme',
      description: 'Acme entwickelt seit 2001 Lösungen für mittelständische Unternehmen in der DACH-Region.',
      industry: 'software',
      hq: 'Berlin',
      employees: '11-50',
    });
    expect(rendered).toBe('Acme is a software company headquartered in Berlin with 11-50 employees. It serves business customers with its own products and services.');
    expect(detectLanguage(rendered)).toBe('en');
  });

  it.each([
    ['de', 'Unser Team in Berlin begleitet Kunden von der Beratung bis zum Betrieb.'],
    ['nl', 'Acme helpt sinds 2001 bedrijven in de Benelux met slimme oplossingen, vanuit ons kantoor in Utrecht.'],
    ['es', 'Acme ayuda desde 2001 a empresas de España y Latinoamérica a crecer con soluciones a medida.'],
    ['it', 'Dal 2001 Acme affianca le aziende italiane con soluzioni su misura, dalla sede di Milano.'],
    ['pl', 'Acme od 2001 roku wspiera firmy w Polsce i Europie Środkowej.'],
  ])('detects %s source text', (language, text) => {
    expect(detectLanguage(text)).toBe(language);
  });
});
