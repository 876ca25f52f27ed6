import type { FieldWriter } from './schema-filler.ts';

type Data = Record<string, any>;
interface PageList {
  heading: string;
  items: string[];
}

/** Fills a product context from the page metadata in the data block, copying what the page says. */
export function productContextWriter(data: Data): FieldWriter {
  const page: Data = data.page ?? {};
  const lists: PageList[] = Array.isArray(page.lists) ? page.lists : [];
  const name = productName(page);
  const features = listNear(lists, /feature|capabilit|what you get|why|highlights/i) ?? (Array.isArray(page.headings) ? page.headings.slice(1) : []);
  const customers = listNear(lists, /\bfor\b|customer|who|built|teams/i) ?? [`Teams that need ${name}`];
  const description = firstText(page.description, page.ogDescription, page.paragraphs?.[0], page.title) ?? name;
  const listsByField: Record<string, string[]> = { keyFeatures: features, targetCustomers: customers };
  return {
    text(field, index) {
      if (field === 'name') return name;
      if (field === 'description') return description;
      return listsByField[field]?.[index] ?? null;
    },
    count: (field) => listsByField[field]?.length ?? 1,
  };
}

function productName(page: Data): string {
  const fromTitle = firstText(page.ogTitle, page.title)?.split(/\s[|–—:-]\s/)[0];
  return firstText(page.siteName, fromTitle, page.headings?.[0]) ?? 'Product';
}

function listNear(lists: PageList[], heading: RegExp): string[] | null {
  const list = lists.find((candidate) => heading.test(candidate.heading) && candidate.items.length > 0);
  return list ? list.items : null;
}

function firstText(...candidates: unknown[]): string | null {
  for (const candidate of candidates) if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  return null;
}
