import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Group, Stack, TextInput, Textarea } from '@mantine/core';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { ZProductContextInput, type TProductContext, type TProductContextInput } from '../../../../../domain/dashboard/schemas.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { FormError } from '../../../components/auth-layout.tsx';

/** Lists are edited one entry per line; the server's schema checks the lines. */
const toLines = (items: string[]) => items.join('\n');
const fromLines = (text: string) => text.split('\n');

const ZProductContextForm = z.object({
  name: z.string(),
  description: z.string(),
  keyFeatures: z.string(),
  targetCustomers: z.string(),
  productUrl: z.string(),
}).transform((values, ctx) => {
  const parsed = ZProductContextInput.safeParse({ ...values, keyFeatures: fromLines(values.keyFeatures), targetCustomers: fromLines(values.targetCustomers) });
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path.slice(0, 1) } as never);
  return z.NEVER;
});

type FormValues = z.input<typeof ZProductContextForm>;

export const EMPTY_PRODUCT: TProductContext = { name: '', description: '', keyFeatures: [], targetCustomers: [], productUrl: null };

const toFormValues = (product: TProductContext): FormValues => ({
  name: product.name,
  description: product.description,
  keyFeatures: toLines(product.keyFeatures),
  targetCustomers: toLines(product.targetCustomers),
  productUrl: product.productUrl ?? '',
});

/** The product context's fields, validated with the schema the server uses; nothing typed is lost on an error. */
export function ProductContextForm(props: {
  initial: TProductContext;
  submitLabel: string;
  isSubmitting: boolean;
  error: Error | null;
  onSubmit(product: TProductContextInput): void;
  onCancel?(): void;
}) {
  const form = useForm<FormValues, unknown, TProductContext>({ resolver: zodResolver(ZProductContextForm), defaultValues: toFormValues(props.initial) });
  const { errors } = form.formState;
  const { initial } = props;
  useEffect(() => form.reset(toFormValues(initial)), [initial, form]);
  // The server's verdict, by field, lands on the same fields as the browser's.
  useEffect(() => {
    if (!(props.error instanceof ApiError)) return;
    for (const [field, message] of Object.entries(props.error.fields)) {
      const name = field.split('.')[0] as keyof FormValues;
      if (name in toFormValues(EMPTY_PRODUCT)) form.setError(name, { message });
    }
  }, [props.error, form]);

  return (
    <form onSubmit={form.handleSubmit((values) => props.onSubmit(values))} noValidate>
      <Stack gap="sm">
        <TextInput label="Product name" required error={errors.name?.message} {...form.register('name')} />
        <Textarea label="Description" required autosize minRows={2} error={errors.description?.message} {...form.register('description')} />
        <Textarea
          label="Key features"
          description="One per line."
          required
          autosize
          minRows={3}
          error={errors.keyFeatures?.message}
          {...form.register('keyFeatures')}
        />
        <Textarea
          label="Target customers"
          description="One per line."
          required
          autosize
          minRows={2}
          error={errors.targetCustomers?.message}
          {...form.register('targetCustomers')}
        />
        <TextInput label="Product page" description="Optional." error={errors.productUrl?.message} {...form.register('productUrl')} />
        {!(props.error instanceof ApiError && Object.keys(props.error.fields).length > 0) && <FormError error={props.error} />}
        <Group justify="flex-end">
          {props.onCancel && (
            <Button variant="default" onClick={props.onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit" loading={props.isSubmitting}>
            {props.submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
