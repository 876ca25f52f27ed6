import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { CompanyRow } from './company.ts';

export const DecisionMakerRow = defineEntity({
  name: 'DecisionMakerRow',
  tableName: 'decision_maker',
  properties: {
    id: p.integer().primary(),
    company: () => p.manyToOne(CompanyRow).deleteRule('cascade'),
    fullName: p.string(),
    positionTitle: p.string(),
    socialUrl: p.text(),
    pictureUrl: p.text().nullable(),
    locationText: p.string().nullable(),
    companyName: p.string(),
  },
});

export type IDecisionMakerRow = InferEntity<typeof DecisionMakerRow>;
