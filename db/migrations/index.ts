import { Migration20261123032131 } from './Migration20261123032131.ts';
import { Migration20261123044500 } from './Migration20261123044500.ts';
import { Migration20261123073000 } from './Migration20261123073000.ts';
import { Migration20261123162000 } from './Migration20261123162000.ts';
import { Migration20261123163000 } from './Migration20261123163000.ts';
import { Migration20261123164000 } from './Migration20261123164000.ts';
import { Migration20261123165000 } from './Migration20261123165000.ts';
import { Migration20261124222300 } from './Migration20261124222300.ts';
import { Migration20261124233000 } from './Migration20261124233000.ts';
import { Migration20261125005515 } from './Migration20261125005515.ts';
import { Migration20261125010000 } from './Migration20261125010000.ts';
import { Migration20261125012500 } from './Migration20261125012500.ts';
import { Migration20261125030500 } from './Migration20261125030500.ts';
import { Migration20261126001000 } from './Migration20261126001000.ts';
import { Migration20261126120000 } from './Migration20261126120000.ts';
import { Migration20261127090000 } from './Migration20261127090000.ts';
import { Migration20261127120000 } from './Migration20261127120000.ts';
import { Migration20261128090000 } from './Migration20261128090000.ts';
import { Migration20261130090000 } from './Migration20261130090000.ts';

// Every migration, in order. Append new ones here.
export const MIGRATIONS = [
  { name: 'Migration20261123032131', class: Migration20261123032131 },
  { name: 'Migration20261123044500', class: Migration20261123044500 },
  { name: 'Migration20261123073000', class: Migration20261123073000 },
  { name: 'Migration20261123162000', class: Migration20261123162000 },
  { name: 'Migration20261123163000', class: Migration20261123163000 },
  { name: 'Migration20261123164000', class: Migration20261123164000 },
  { name: 'Migration20261123165000', class: Migration20261123165000 },
  { name: 'Migration20261124222300', class: Migration20261124222300 },
  { name: 'Migration20261124233000', class: Migration20261124233000 },
  { name: 'Migration20261125005515', class: Migration20261125005515 },
  { name: 'Migration20261125010000', class: Migration20261125010000 },
  { name: 'Migration20261125012500', class: Migration20261125012500 },
  { name: 'Migration20261125030500', class: Migration20261125030500 },
  { name: 'Migration20261126001000', class: Migration20261126001000 },
  { name: 'Migration20261126120000', class: Migration20261126120000 },
  { name: 'Migration20261127090000', class: Migration20261127090000 },
  { name: 'Migration20261127120000', class: Migration20261127120000 },
  { name: 'Migration20261128090000', class: Migration20261128090000 },
  { name: 'Migration20261130090000', class: Migration20261130090000 },
];
