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
  const description = firstText(page.description, page.ogDescription, page.paragraphs?.[0], page.title) ?? name;
  const headings: string[] = Array.isArray(page.headings) ? page.headings.slice(1) : [];
  // A page without a feature list still says what the product does: a model reads the features from its sentences.
  const features = listNear(lists, /feature|capabilit|what you get|why|highlights/i)
    ?? (headings.length > 0 ? headings : null)
    ?? featuresFromSentences([description, ...(Array.isArray(page.paragraphs) ? page.paragraphs : [])], name);
  const customers = listNear(lists, /\bfor\b|customer|who|built|teams/i) ?? customersFromSentences(description) ?? [`Teams that need ${name}`];
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

/** "X plans routes, tracks vehicles and gives customers arrival times." → ["Plans routes", "Tracks vehicles", "Gives customers arrival times"]. */
function featuresFromSentences(sentences: string[], name: string): string[] {
  const phrases = sentences.flatMap((sentence) => {
    const body = sentence.replace(new RegExp(`^${escapeRegExp(name)}\\s+(is\\s+an?\\s+[^,.]+?\\s+that\\s+)?`, 'i'), '').replace(/\s+for\s+[^,.]+\.?$/i, '');
    return body.split(/,\s*|\s+and\s+|\.\s*/).map((part) => part.trim().replace(/\.$/, '')).filter((part) => part.split(/\s+/).length >= 2);
  });
  const unique = [...new Set(phrases.map((phrase) => phrase.charAt(0).toUpperCase() + phrase.slice(1)))];
  return unique.slice(0, 6).length > 0 ? unique.slice(0, 6) : [`${name} for everyday work`];
}

/** "… for finance teams." → ["Finance teams"]. */
function customersFromSentences(description: string): string[] | null {
  const match = /\bfor\s+([^,.]+?)\.?$/i.exec(description.trim());
  return match ? [match[1].charAt(0).toUpperCase() + match[1].slice(1)] : null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function listNear(lists: PageList[], heading: RegExp): string[] | null {
  const list = lists.find((candidate) => heading.test(candidate.heading) && candidate.items.length > 0);
  return list ? list.items : null;
}

function firstText(...candidates: unknown[]): string | null {
  for (const candidate of candidates) if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  return null;
}
