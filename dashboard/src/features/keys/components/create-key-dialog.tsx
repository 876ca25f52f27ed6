import { Alert, Button, CopyButton, Group, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ZProductUrl, type TProductContext } from '../../../../../domain/dashboard/schemas.ts';
import { draftProductContext, useCreateKey } from '../api.ts';
import { EMPTY_PRODUCT, ProductContextForm } from './product-context-form.tsx';

/** "Copied" stays long enough to be read, and for a screen reader to say the button's new name. */
const COPIED_SHOWN_MS = 3_000;

type Step = { name: 'url' } | { name: 'review'; draft: TProductContext } | { name: 'created'; key: string; isConfirmingClose: boolean };

/**
 * docs/decisions.md#the-dashboard: product URL → extracted context → review and edit → create →
 * the key shown once, with a copy button and a confirmation before it is gone.
 */
export function CreateKeyDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const [step, setStep] = useState<Step>({ name: 'url' });
  const [productUrl, setProductUrl] = useState('');
  const [urlError, setUrlError] = useState<string | null>(null);
  const draft = useMutation({
    mutationFn: draftProductContext,
    onSuccess: (context) => setStep({ name: 'review', draft: context }),
    // An unreadable page is said at the URL field: the person corrects the address or goes on by hand (without the bad URL).
    onError: (error) => setUrlError(`${error.message} Correct the address, or fill in the product context by hand.`),
  });
  const create = useCreateKey();

  const close = () => {
    if (step.name === 'created' && !step.isConfirmingClose) return setStep({ ...step, isConfirmingClose: true });
    setStep({ name: 'url' });
    setProductUrl('');
    setUrlError(null);
    create.reset();
    draft.reset();
    onClose();
  };
  const readPage = () => {
    const parsed = ZProductUrl.safeParse(productUrl);
    if (!parsed.success) return setUrlError(parsed.error.issues[0]!.message);
    setUrlError(null);
    draft.mutate(parsed.data);
  };

  return (
    <Modal opened={opened} onClose={close} title="Create API key" size="lg" closeOnClickOutside={step.name !== 'created'}>
      {step.name === 'url' && (
        <Stack>
          <Text size="sm">Enter your product's web address: we read the page and fill in the product context for you to review.</Text>
          <TextInput
            label="Product URL"
            placeholder="https://www.example.com"
            value={productUrl}
            onChange={(event) => {
              setProductUrl(event.currentTarget.value);
              setUrlError(null);
            }}
            onKeyDown={(event) => event.key === 'Enter' && readPage()}
            error={urlError}
            disabled={draft.isPending}
          />
          {draft.isPending && (
            <Group role="status" gap="xs">
              <Loader size="sm" aria-hidden /> <Text size="sm">Reading the product page…</Text>
            </Group>
          )}
          <Group justify="space-between">
            <Button variant="subtle" onClick={() => setStep({ name: 'review', draft: EMPTY_PRODUCT })}>
              Fill in by hand
            </Button>
            <Button onClick={readPage} loading={draft.isPending}>
              Read product page
            </Button>
          </Group>
        </Stack>
      )}
      {step.name === 'review' && (
        <Stack>
          <Text size="sm">Review the product context. Every job of this key is tailored to it; you can edit it later.</Text>
          <ProductContextForm
            initial={step.draft}
            submitLabel="Create key"
            isSubmitting={create.isPending}
            error={create.error}
            onSubmit={(product) => create.mutate(product, { onSuccess: (created) => setStep({ name: 'created', key: created.key, isConfirmingClose: false }) })}
            onCancel={close}
          />
        </Stack>
      )}
      {step.name === 'created' && (
        <Stack>
          <Alert color="yellow" title="Copy your key now">
            This is the only time the key is shown. Store it in your secret manager; if it is lost, create a new key.
          </Alert>
          <TextInput label="Your new API key" value={step.key} readOnly onFocus={(event) => event.currentTarget.select()} // A monospace face has deeper underscores than the default line box: without room they are clipped (`svc live …`).
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', lineHeight: 1.6, height: 'auto', paddingBlock: 6 } }} />
          {step.isConfirmingClose ? (
            <Alert color="red" role="alert" title="You will not see this key again">
              <Group mt="xs">
                <Button color="red" onClick={close}>
                  Close anyway
                </Button>
                <Button variant="default" onClick={() => setStep({ ...step, isConfirmingClose: false })}>
                  Keep it open
                </Button>
              </Group>
            </Alert>
          ) : (
            <Group justify="flex-end">
              <CopyButton value={step.key} timeout={COPIED_SHOWN_MS}>
                {({ copied, copy }) => (
                  <Button variant={copied ? 'filled' : 'default'} color={copied ? 'teal' : undefined} onClick={copy}>
                    {copied ? 'Copied' : 'Copy key'}
                  </Button>
                )}
              </CopyButton>
              <Button onClick={close}>Done</Button>
            </Group>
          )}
        </Stack>
      )}
    </Modal>
  );
}
