/** What the caller sells; every AI step is tailored to it (spec §1, §5.4). */
export interface ProductContext {
  name: string;
  description: string;
  keyFeatures: string[];
  targetCustomers: string[];
  productUrl: string | null;
}
