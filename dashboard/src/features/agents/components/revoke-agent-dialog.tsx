import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { FormError } from '../../../components/auth-layout.tsx';
import { useRevokeAgent, type ConnectedAgent } from '../api.ts';

export function RevokeAgentDialog({ agent, onClose }: { agent: ConnectedAgent | null; onClose(): void }) {
  const revoke = useRevokeAgent();
  const close = () => {
    revoke.reset();
    onClose();
  };
  const title = agent ? `Revoke access for ${agent.name}` : 'Revoke access';
  return (
    <Modal opened={agent !== null} onClose={close} title={title}>
      {agent && (
        <Stack>
          <Text>
            {agent.name} loses access at once: its next call is refused, and it cannot renew its tokens. Research it already started finishes
            normally. To use it again, connect it again and allow it.
          </Text>
          <FormError error={revoke.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red" loading={revoke.isPending} onClick={() => revoke.mutate(agent.clientId, { onSuccess: close })}>
              {title}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
