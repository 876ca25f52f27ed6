/** What the caller sells; every AI step is tailored to it (docs/api.md#authentication). */
export interface ProductContext {
  name: string;
  description: string;
  keyFeatures: string[];
  targetCustomers: string[];
  productUrl: string | null;
}
