import { describe, expect, it } from 'vitest';
import { devBanner } from '../../scripts/lib/dev-banner.ts';

describe("npm run dev's Ready text", () => {
  const text = devBanner({
    apiUrl: 'http://127.0.0.1:3000',
    sandboxUrls: { 'mail-sandbox': 'http://127.0.0.1:4300' },
    temporalUiUrl: 'http://127.0.0.1:8233',
    temporalAddress: '127.0.0.1:7233',
    databaseUrl: 'postgres://prospect:prospect@127.0.0.1:54329/prospect',
    workers: [
      { name: 'research-worker', entry: 'worker/main.ts', args: ['research'], probeUrl: 'http://127.0.0.1:9464/readyz' },
      { name: 'crm-worker', entry: 'worker/main.ts', args: ['crm'], probeUrl: 'http://127.0.0.1:9465/readyz' },
    ],
    env: {},
  });
  const lines = text.split('\n');
  const lineOf = (start: RegExp) => lines.findIndex((line) => start.test(line));

  it('names the API once, and Temporal UI and the database before the worker processes', () => {
    expect(lines.filter((line) => line.includes('http://127.0.0.1:3000 ') || line.endsWith('http://127.0.0.1:3000'))).toHaveLength(1);
    expect(lineOf(/^\s+API\s/)).toBeGreaterThan(0);
    expect(lineOf(/^\s+Temporal UI\s+http:\/\/127\.0\.0\.1:8233$/)).toBeGreaterThan(lineOf(/^\s+Dashboard\s/));
    expect(lineOf(/^\s+Database\s+postgres:\/\/prospect:\*\*\*@/)).toBeLessThan(lineOf(/^\s+research-worker\s/));
    expect(lineOf(/^\s+Temporal UI/)).toBeLessThan(lineOf(/^\s+research-worker\s/));
    expect(lines.at(-1)).toBe('Press Ctrl-C to stop everything.');
  });
});
