import { z } from 'zod';

export type RepairOutcome<T> = { ok: true; value: T; trimmedPaths: string[] } | { ok: false; problems: string[] };

/**
 * Validates a model answer against the same zod schema its JSON schema came
 * from. Lists that are too long are cut to size (the first items are the ones
 * the model ranked first); anything else — too few items, a wrong type, a blank
 * text — is reported as a problem for one corrective retry. A wrong answer is
 * never passed on (docs/decisions.md#data-and-ai: list sizes are exact).
 */
export function repairAnswer<T>(schema: z.ZodType<T>, answer: unknown): RepairOutcome<T> {
  const draft: unknown = structuredClone(answer);
  const trimmedPaths: string[] = [];
  let parsed = schema.safeParse(draft);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code !== 'too_big' || issue.origin !== 'array') continue;
      const list = valueAt(draft, issue.path);
      if (!Array.isArray(list)) continue;
      list.length = Number(issue.maximum);
      trimmedPaths.push(pathName(issue.path));
    }
    if (trimmedPaths.length > 0) parsed = schema.safeParse(draft);
  }
  if (parsed.success) return { ok: true, value: parsed.data, trimmedPaths };
  return { ok: false, problems: parsed.error.issues.map((issue) => describeIssue(issue, draft)) };
}

function describeIssue(issue: z.core.$ZodIssue, draft: unknown): string {
  const where = pathName(issue.path);
  if (issue.code === 'too_small' && issue.origin === 'array') {
    const list = valueAt(draft, issue.path);
    const count = Array.isArray(list) ? list.length : 0;
    return `"${where}" has ${count} item(s) but must have exactly ${String(issue.minimum)}`;
  }
  return `"${where}": ${issue.message}`;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function pathName(path: PropertyKey[]): string {
  return path.length === 0 ? '(answer)' : path.map(String).join('.');
}

/** A JSON schema accepted by strict structured outputs, from the zod schema that validates the answer. */
export function toStrictJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { target: 'draft-7' }) as Record<string, unknown>;
  return jsonSchema;
}

/** A text that must carry content: the JSON schema cannot say "not blank", so the check lives here. */
export function zText() {
  return z.string().refine((text) => text.trim().length > 0, 'must not be blank');
}

export function zTexts(count: number) {
  return z.array(zText()).length(count);
}
