import { parse, type HTMLElement } from 'node-html-parser';

/** What a product page says about itself, as plain text (no markup reaches the model). */
export interface PageMetadata {
  title: string | null;
  siteName: string | null;
  ogTitle: string | null;
  description: string | null;
  ogDescription: string | null;
  headings: string[];
  /** Bullet lists with the heading they sit under: feature lists, "built for" lists. */
  lists: { heading: string; items: string[] }[];
  paragraphs: string[];
}

// Bounds on what goes into the prompt, whatever the page holds.
const MAX_HEADINGS = 12;
const MAX_LISTS = 8;
const MAX_LIST_ITEMS = 10;
const MAX_PARAGRAPHS = 6;
const MAX_TEXT_CHARS = 300;

export function readPageMetadata(html: string): PageMetadata {
  // Script and style bodies are dropped by the parser: they are code, not product text.
  const root = parse(html, { comment: false, blockTextElements: { pre: true } });
  const meta = (selector: string) => clean(root.querySelector(selector)?.getAttribute('content'));
  const content = root.querySelector('main') ?? root.querySelector('body') ?? root;
  return {
    title: clean(root.querySelector('title')?.text),
    siteName: meta('meta[property="og:site_name"]'),
    ogTitle: meta('meta[property="og:title"]'),
    description: meta('meta[name="description"]'),
    ogDescription: meta('meta[property="og:description"]'),
    headings: texts(content.querySelectorAll('h1, h2'), MAX_HEADINGS),
    lists: content
      .querySelectorAll('ul, ol')
      .filter((list) => !list.closest('nav, footer, header'))
      .map((list) => ({ heading: headingOf(list), items: texts(list.querySelectorAll('li'), MAX_LIST_ITEMS) }))
      .filter((list) => list.items.length > 0)
      .slice(0, MAX_LISTS),
    paragraphs: texts(content.querySelectorAll('p').filter((p) => !p.closest('nav, footer')), MAX_PARAGRAPHS),
  };
}

/** The heading a list sits under: a preceding sibling heading, looking up a few levels. */
function headingOf(list: HTMLElement): string {
  let node: HTMLElement | null = list;
  for (let level = 0; node && level < 3; level += 1, node = node.parentNode) {
    for (let sibling = node.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
      if (/^H[1-4]$/.test(sibling.tagName)) return clean(sibling.text) ?? '';
    }
  }
  return '';
}

function texts(elements: HTMLElement[], limit: number): string[] {
  const seen = new Set<string>();
  for (const element of elements) {
    const text = clean(element.text);
    if (text && text.length > 1) seen.add(text);
    if (seen.size >= limit) break;
  }
  return [...seen];
}

function clean(text: string | undefined | null): string | null {
  const collapsed = text?.replace(/\s+/g, ' ').trim();
  if (!collapsed) return null;
  return collapsed.length > MAX_TEXT_CHARS ? `${collapsed.slice(0, MAX_TEXT_CHARS)}…` : collapsed;
}
