/** Facts the sandbox pulled from a request's data block, ready for templates. */
export interface WriterFacts {
  person: string;
  firstName: string;
  title: string;
  company: string;
  industry: string | null;
  product: string;
  /** The product's key features, cycling; the product name when it lists none. */
  feature(index: number): string;
}

/**
 * Deterministic template text in one language. Templates use many everyday
 * function words so that a reader (or a test) can tell the language apart.
 */
export interface Phrasebook {
  summary(f: WriterFacts): string;
  openingTalk(index: number, f: WriterFacts, topic: string | null): string;
  postSummary(author: string, topic: string): string;
  problems(f: WriterFacts): string[];
  services(f: WriterFacts): string[];
  icp(f: WriterFacts): string[];
  synergy(index: number, f: WriterFacts): string;
  discovery(index: number, f: WriterFacts): string;
  insights(f: WriterFacts): string[];
  newsSummary(company: string, title: string): string;
  companyPostSummary(company: string, topic: string): string;
  generic(field: string, index: number): string;
}
