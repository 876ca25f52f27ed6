import { describe, expect, it } from 'vitest';
import { displayPlace, displayTitle, joinPlace } from '../../domain/enrichment/display-text.ts';

// One person seen through two providers showed "VP Of Operations" beside
// "VP of Operations", and places read "Île-de-france": one rule, everywhere.

describe('displayTitle', () => {
  it('gives every spelling of one title the same display form', () => {
    for (const spelling of ['vp of operations', 'Vp Of Operations', 'VP of operations', 'VP OF OPERATIONS', '  vp  of operations ']) {
      expect(displayTitle(spelling), spelling).toBe('VP of Operations');
    }
  });

  it('keeps acronyms upper case and small words lower case, also in other languages', () => {
    expect(displayTitle('co-founder and chief executive officer')).toBe('Co-Founder and Chief Executive Officer');
    expect(displayTitle('head of it and hr, emea')).toBe('Head of IT and HR, EMEA');
    expect(displayTitle('svp sales & marketing')).toBe('SVP Sales & Marketing');
    expect(displayTitle('directeur administratif et financier')).toBe('Directeur Administratif et Financier');
    expect(displayTitle('président-directeur général')).toBe('Président-Directeur Général');
    expect(displayTitle('leiter für vertrieb')).toBe('Leiter für Vertrieb');
    expect(displayTitle('managing director (ceo)')).toBe('Managing Director (CEO)');
    expect(displayTitle('head of r&d')).toBe('Head of R&D');
    expect(displayTitle(null)).toBeNull();
    expect(displayTitle('  ')).toBeNull();
  });
});

describe('displayPlace', () => {
  it('capitalises every part of hyphenated names and keeps joining words lower', () => {
    expect(displayPlace('north rhine-westphalia, germany')).toBe('North Rhine-Westphalia, Germany');
    expect(displayPlace('North Rhine-westphalia')).toBe('North Rhine-Westphalia');
    expect(displayPlace('paris, île-de-france, france')).toBe('Paris, Île-de-France, France');
    expect(displayPlace('auvergne-rhône-alpes')).toBe('Auvergne-Rhône-Alpes');
    expect(displayPlace('pays de la loire')).toBe('Pays de la Loire');
    expect(displayPlace('Covina, California 91723, US')).toBe('Covina, California 91723, US');
  });

  it('says a city that is its own state once', () => {
    expect(displayPlace('hamburg, hamburg, germany')).toBe('Hamburg, Germany');
    expect(displayPlace('Singapore, Singapore, Singapore')).toBe('Singapore');
    expect(joinPlace('Berlin', 'berlin', 'Germany')).toBe('Berlin, Germany');
    expect(displayPlace('Paris, Texas, US')).toBe('Paris, Texas, US');
  });

  it('joins the known parts of a place', () => {
    expect(joinPlace('denver', null, 'united states')).toBe('Denver, United States');
    expect(joinPlace(null, undefined, '')).toBeNull();
  });
});
