import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repairAnswer, toStrictJsonSchema, zText, zTexts } from '../../integrations/ai/answer-repair.ts';
import { productNameProblems } from '../../integrations/ai/company-insights-prompt.ts';

const schema = z.object({ summary: zText(), talks: zTexts(3), nested: z.object({ items: zTexts(2) }) });

describe('answer repair', () => {
  it('passes a correct answer through untouched', () => {
    const answer = { summary: 'ok', talks: ['a', 'b', 'c'], nested: { items: ['x', 'y'] } };
    expect(repairAnswer(schema, answer)).toEqual({ ok: true, value: answer, trimmedPaths: [] });
  });

  it('trims every list that is too long, keeping the first items', () => {
    const outcome = repairAnswer(schema, { summary: 'ok', talks: ['a', 'b', 'c', 'd'], nested: { items: ['x', 'y', 'z'] } });
    expect(outcome).toEqual({ ok: true, value: { summary: 'ok', talks: ['a', 'b', 'c'], nested: { items: ['x', 'y'] } }, trimmedPaths: ['talks', 'nested.items'] });
  });

  it('reports lists that are too short, blank texts and wrong types', () => {
    const outcome = repairAnswer(schema, { summary: '  ', talks: ['a'], nested: { items: 'x' } });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.problems).toEqual(
      expect.arrayContaining([
        '"summary": must not be blank',
        '"talks" has 1 item(s) but must have exactly 3',
        expect.stringMatching(/^"nested\.items": Invalid input: expected array/),
      ]),
    );
  });

  it('does not mutate the answer it was given', () => {
    const answer = { summary: 'ok', talks: ['a', 'b', 'c', 'd'], nested: { items: ['x', 'y'] } };
    repairAnswer(schema, answer);
    expect(answer.talks).toHaveLength(4);
  });

  it('produces a strict JSON schema with exact sizes from the same zod schema', () => {
    const jsonSchema = toStrictJsonSchema(schema) as any;
    expect(jsonSchema.$schema).toBeUndefined();
    expect(jsonSchema).toMatchObject({ type: 'object', additionalProperties: false, required: ['summary', 'talks', 'nested'] });
    expect(jsonSchema.properties.talks).toMatchObject({ minItems: 3, maxItems: 3 });
    expect(jsonSchema.properties.nested).toMatchObject({ additionalProperties: false, required: ['items'] });
  });

  it('lists synergy points and questions that do not name the product', () => {
    expect(productNameProblems('PipelinePilot', { synergyPoints: ['pipelinepilot helps', 'nothing'], discoveryQuestions: ['How would PipelinePilot fit?'] })).toEqual([
      '"synergyPoints" items 1 do not name the product "PipelinePilot"',
    ]);
  });
});
