import type { Language } from '../../../domain/research/languages.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { it } from './it.ts';
import { nl } from './nl.ts';
import type { Phrasebook } from './phrasebook.ts';
import { pl } from './pl.ts';
import { pt } from './pt.ts';

export type { Phrasebook, WriterFacts } from './phrasebook.ts';

export const PHRASEBOOKS: Record<Language, Phrasebook> = { en, pl, de, fr, es, it, pt, nl };
