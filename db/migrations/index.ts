import { Migration20261123032131 } from './Migration20261123032131.ts';

// Every migration, in order. Append new ones here.
export const MIGRATIONS = [{ name: 'Migration20261123032131', class: Migration20261123032131 }];
