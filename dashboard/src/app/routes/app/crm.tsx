import { Alert, Anchor, Button, Card, Group, Modal, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/app-layout.tsx';
import { FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import {
  startConnect, useCrm, useCrmPreview, useCrmProduct, useCrmScoreProperties, useDisconnect, useRefreshPreviewWhenRunsEnd, useReloadScoreProperties, useRunNow, useSaveCrmSettings,
  type CrmOverview,
} from '../../../features/crm/api.ts';
import { CrmPreviewTable, CrmRuns } from '../../../features/crm/components/crm-runs.tsx';
import { CrmSettingsForm } from '../../../features/crm/components/crm-settings-form.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { planLabel } from '../../../../../domain/plans.ts';

const PAUSE_REASONS: Record<string, string> = {
  disconnected: 'HubSpot was disconnected',
  token_revoked: 'HubSpot stopped accepting the connection',
  plan: 'the plan no longer includes the CRM integration',
  account_deleted: 'the account is being deleted',
};

const RETURN_NOTICES: Record<string, string> = {
  state: 'That connection attempt expired or was already used. Start again with Connect HubSpot.',
  denied: 'The connection was cancelled in HubSpot. Nothing changed.',
  exchange: 'HubSpot did not complete the connection. Try again in a minute.',
};

/** The CRM page (docs/crm.md): the account's HubSpot connection, and per product its settings, schedule, preview and runs. */
export default function CrmPage() {
  const crm = useCrm();
  const { productId } = useParams();
  return (
    <>
      <PageTitle>CRM</PageTitle>
      <QueryState query={crm} label="the CRM integration">
        {(overview) => <CrmOverviewView overview={overview} productId={productId ? Number(productId) : overview.products[0]?.id ?? null} />}
      </QueryState>
    </>
  );
}

function CrmOverviewView({ overview, productId }: { overview: CrmOverview; productId: number | null }) {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  if (!overview.planHasCrm) {
    return (
      <Alert color="blue" title="The CRM integration comes with the Growth and Scale plans">
        It researches your best HubSpot leads on a schedule and writes the research back into HubSpot. You are on the {planLabel(overview.plan)} plan.{' '}
        <Anchor component={Link} to="/billing">
          Change your plan on the Billing page
        </Anchor>
        .
      </Alert>
    );
  }
  if (!overview.configured) {
    return <Alert color="yellow" title="HubSpot is not configured on this server">An operator must set HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET.</Alert>;
  }
  if (overview.products.length === 0 || productId === null) {
    return (
      <Text>
        The CRM integration works per product. <Anchor component={Link} to="/keys">Create a key with its product</Anchor> first.
      </Text>
    );
  }
  const error = params.get('error');
  return (
    <Stack>
      {params.get('connected') && overview.connection && <FormNotice>HubSpot portal {overview.connection.portalId} is connected.</FormNotice>}
      {error && RETURN_NOTICES[error] && (
        <Alert color="red" role="alert" title="HubSpot is not connected">
          {RETURN_NOTICES[error]}
        </Alert>
      )}
      <ConnectionCard overview={overview} productId={productId} />
      {overview.products.length > 1 && (
        <Select
          label="Product"
          data={overview.products.map((product) => ({ value: String(product.id), label: product.name }))}
          value={String(productId)}
          allowDeselect={false}
          onChange={(value) => value && void navigate(`/crm/${value}`)}
        />
      )}
      <ProductSection key={productId} productId={productId} isConnected={overview.connection !== null} />
    </Stack>
  );
}

function ConnectionCard({ overview, productId }: { overview: CrmOverview; productId: number }) {
  const [connectError, setConnectError] = useState<Error | null>(null);
  const [isConnecting, setConnecting] = useState(false);
  const [isConfirming, setConfirming] = useState(false);
  const disconnect = useDisconnect();
  const connect = () => {
    setConnecting(true);
    startConnect(productId).then(
      ({ authorizeUrl }) => window.location.assign(authorizeUrl),
      (error: Error) => {
        setConnecting(false);
        setConnectError(error);
      },
    );
  };
  const { connection, lostConnection } = overview;
  return (
    <Card withBorder>
      <Title order={2} size="h3">
        HubSpot connection
      </Title>
      {connection ? (
        <Stack gap="xs" mt="xs">
          <Text>
            Connected to HubSpot portal {connection.portalId} by {connection.connectedBy} (HubSpot user {connection.hubUser}) on {formatDateTime(connection.connectedAt)}. All your
            products share this connection.
          </Text>
          <Group>
            <Button variant="default" color="red" onClick={() => setConfirming(true)}>
              Disconnect HubSpot
            </Button>
          </Group>
          <Modal opened={isConfirming} onClose={() => setConfirming(false)} title="Disconnect HubSpot?">
            <Stack>
              <Text>
                Disconnecting revokes our access to HubSpot and pauses the CRM integration of every product. Your settings stay, and so do the properties and notes already
                written in HubSpot. Uninstalling the app in HubSpot&apos;s Connected apps is a separate step.
              </Text>
              <FormError error={disconnect.error} />
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setConfirming(false)}>
                  Keep the connection
                </Button>
                <Button color="red" loading={disconnect.isPending} onClick={() => disconnect.mutate(undefined, { onSuccess: () => setConfirming(false) })}>
                  Disconnect
                </Button>
              </Group>
            </Stack>
          </Modal>
        </Stack>
      ) : (
        <Stack gap="xs" mt="xs">
          {lostConnection && (
            <Alert color="red" role="alert" title="HubSpot stopped accepting the connection">
              The connection to portal {lostConnection.portalId} was revoked or the app uninstalled in HubSpot. The integrations are paused; connect again to resume them.
            </Alert>
          )}
          <Text>Connect your HubSpot account once; every product of your account uses the connection.</Text>
          <Group>
            <Button loading={isConnecting} onClick={connect}>
              Connect HubSpot
            </Button>
          </Group>
          <FormError error={connectError} />
        </Stack>
      )}
    </Card>
  );
}

function ProductSection({ productId, isConnected }: { productId: number; isConnected: boolean }) {
  const runNow = useRunNow(productId);
  const page = useCrmProduct(productId, runNow.data?.runId ?? null);
  const save = useSaveCrmSettings(productId);
  const [isPreviewing, setPreviewing] = useState(false);
  const preview = useCrmPreview(productId, isPreviewing && isConnected);
  useRefreshPreviewWhenRunsEnd(productId, page.data?.runs, runNow.data?.runId ?? null);
  const scoreProperties = useCrmScoreProperties(isConnected);
  const reloadScoreProperties = useReloadScoreProperties();
  const [saved, setSaved] = useState(false);

  return (
    <QueryState query={page} label="the product's CRM settings">
      {(data) => (
        <Stack>
          <Card withBorder>
            <Title order={2} size="h3">
              {data.product.name}: schedule
            </Title>
            {data.settings.pausedReason && (
              <Text role="status" mt="xs">
                Paused because {PAUSE_REASONS[data.settings.pausedReason] ?? data.settings.pausedReason}.
              </Text>
            )}
            {data.chatWebhookDisabled && (
              <Alert color="yellow" mt="xs" title="Chat messages are off">
                The chat webhook answered “{data.chatWebhookDisabled.reason}”. Set a new webhook URL to get messages again.
              </Alert>
            )}
            <Group mt="xs" justify="space-between">
              <Text>{data.nextRunAt ? `Next run: ${formatDateTime(data.nextRunAt)} (runs may start up to 10 minutes late).` : 'No run is scheduled: the integration is paused or HubSpot is not connected.'}</Text>
              <Button disabled={!data.nextRunAt} loading={runNow.isPending} onClick={() => runNow.mutate()}>
                Run now
              </Button>
            </Group>
            {runNow.isSuccess && <FormNotice>The run started. Its results appear under Last runs.</FormNotice>}
            <FormError error={runNow.error} />
          </Card>
          <Card withBorder>
            <Title order={2} size="h3" mb="xs">
              Settings
            </Title>
            {saved && !save.isPending && !save.error && <FormNotice>Settings saved. They apply from the next run.</FormNotice>}
            <CrmSettingsForm
              initial={data.settings}
              scoreProperties={scoreProperties.data ?? null}
              scorePropertiesError={reloadScoreProperties.error ?? scoreProperties.error}
              isReloadingScoreProperties={reloadScoreProperties.isPending}
              onReloadScoreProperties={isConnected ? () => reloadScoreProperties.mutate() : null}
              isSaving={save.isPending}
              error={save.error}
              onSave={(values) => save.mutate(values, { onSuccess: () => setSaved(true) })}
            />
          </Card>
          <Card withBorder>
            <Group justify="space-between">
              <Title order={2} size="h3">
                Next run&apos;s contacts
              </Title>
              <Button variant="default" disabled={!isConnected} onClick={() => (isPreviewing ? void preview.refetch() : setPreviewing(true))}>
                Preview the next run
              </Button>
            </Group>
            {isPreviewing && (
              <QueryState query={preview} label="the preview">
                {(preview) => <CrmPreviewTable preview={preview} />}
              </QueryState>
            )}
          </Card>
          <Card withBorder>
            <Title order={2} size="h3" mb="xs">
              Last runs
            </Title>
            <CrmRuns runs={data.runs} />
          </Card>
        </Stack>
      )}
    </QueryState>
  );
}
