import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';

// Our tracker's numbers mean nothing to a reader of the repository: a comment,
// a test's name or a page says the reason itself. Another project's public
// issue stays citable by its address (owner/repo#N or its URL).
const OUR_ISSUE_NUMBER = /(?<![\w/.-])issues? #?\d+/gi;
const NOT_PROSE = /^(package-lock\.json|test\/histories\/|bench\/results\/)|\.(png|svg|jpe?g|ico|woff2?|gz|br)$/;

function citations(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) => (line.match(OUR_ISSUE_NUMBER) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('no issue numbers in the repository', () => {
  it('no tracked file cites one of our issues by number', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((file) => file && !NOT_PROSE.test(file));
    expect(files.flatMap((file) => citations(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  it('finds our numbers in a comment, and leaves another project\'s public issue alone', () => {
    // Built from parts so that this file does not cite what it looks for.
    const ours = (words: string) => words.replace('N', String(21)).replace('M', String(18));
    expect(citations('a.ts', [ours('// Issue N: one activity'), ours('// (issues M, N)'), '// temporalio/temporal#2582, github.com/o/r/issues/7'].join('\n'))).toEqual([
      ours('a.ts:1: // Issue N: one activity'),
      ours('a.ts:2: // (issues M, N)'),
    ]);
  });
});
