import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';

export const ProductContextRow = defineEntity({
  name: 'ProductContextRow',
  tableName: 'product_context',
  properties: {
    id: p.integer().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    name: p.string(),
    description: p.text(),
    keyFeatures: p.json<string[]>(),
    targetCustomers: p.json<string[]>(),
    productUrl: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type IProductContextRow = InferEntity<typeof ProductContextRow>;
