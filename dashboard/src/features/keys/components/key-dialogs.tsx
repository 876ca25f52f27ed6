import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { KeyListItem, KeyProduct } from '../../../../../domain/dashboard/replies.ts';
import { FormError } from '../../../components/auth-layout.tsx';
import { useRevokeKey, useUpdateProduct } from '../api.ts';
import { ProductContextForm } from './product-context-form.tsx';

const keyName = (key: KeyListItem) => key.product?.name ?? key.prefix;

export function RevokeKeyDialog({ apiKey, onClose }: { apiKey: KeyListItem | null; onClose(): void }) {
  const revoke = useRevokeKey();
  const close = () => {
    revoke.reset();
    onClose();
  };
  return (
    <Modal opened={apiKey !== null} onClose={close} title="Revoke API key">
      {apiKey && (
        <Stack>
          <Text>
            Requests with the key {apiKey.prefix}… ({keyName(apiKey)}) will be refused at once with 401 invalid_key. Jobs already
            submitted finish normally. This cannot be undone.
          </Text>
          <FormError error={revoke.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red" loading={revoke.isPending} onClick={() => revoke.mutate(apiKey.id, { onSuccess: close })}>
              Revoke key {keyName(apiKey)}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function EditProductDialog({ product, onClose }: { product: KeyProduct | null; onClose(): void }) {
  const update = useUpdateProduct();
  const close = () => {
    update.reset();
    onClose();
  };
  return (
    <Modal opened={product !== null} onClose={close} title="Edit product context" size="lg">
      {product && (
        <Stack>
          <Text size="sm">Changes apply to future jobs only; results already stored are not rewritten.</Text>
          <ProductContextForm
            initial={product}
            submitLabel="Save product context"
            isSubmitting={update.isPending}
            error={update.error}
            onSubmit={(input) => update.mutate({ productId: product.id, product: input }, { onSuccess: close })}
            onCancel={close}
          />
        </Stack>
      )}
    </Modal>
  );
}
