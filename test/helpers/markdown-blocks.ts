import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One fenced code block: ```` ```lang flags ````, its first line's number (1-based) in its file. */
export interface CodeBlock {
  file: string;
  line: number;
  lang: string;
  /** Words after the language, e.g. `run` in ```` ```sh run ````. */
  flags: string[];
  code: string;
}

/** README.md and every .md under docs/, as they are when the test runs. */
export function markdownFiles(root: string): string[] {
  const docs = join(root, 'docs');
  const pages = existsSync(docs) ? readdirSync(docs, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md')).map((name) => join(docs, name)) : [];
  return [join(root, 'README.md'), ...pages.sort()].filter((file) => existsSync(file));
}

export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end += 1) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[end]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      // Content inside a list item is indented like its fence.
      body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end].trimStart());
    }
    const [lang = '', ...flags] = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({ file: relative(root, file), line: index + 1, lang: lang.toLowerCase(), flags, code: `${body.join('\n')}\n` });
    index = end;
  }
  return blocks;
}

export const where = (block: CodeBlock) => `${block.file}:${block.line} (\`\`\`${[block.lang, ...block.flags].join(' ')})`;
