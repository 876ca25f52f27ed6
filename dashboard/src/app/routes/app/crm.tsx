import { Alert, Anchor, Button, Card, Group, List, Modal, Radio, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/app-layout.tsx';
import { FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import {
  startConnect, useCrm, useCrmPreview, useSetUpFields, useCrmProduct, useCrmScoreProperties, useDisconnect, useRefreshPreviewWhenRunsEnd, useReloadScoreProperties, useRunNow, useSaveCrmSettings,
  type CrmOverview, type CrmRun, type CrmRunStarted,
} from '../../../features/crm/api.ts';
import { CrmPreviewTable, CrmRuns, queuedText } from '../../../features/crm/components/crm-runs.tsx';
import { CrmSettingsForm } from '../../../features/crm/components/crm-settings-form.tsx';
import { CrmNameContext, useCrmName } from '../../../features/crm/crm-name.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { planLabel } from '../../../../../domain/billing/plans.ts';

// Once connected again, perhaps to another CRM, a pause for a lost connection was an earlier connection's: the connected CRM is not named.
const pauseReasons = (crm: string, isConnected: boolean): Record<string, string> => ({
  disconnected: isConnected ? 'an earlier CRM connection was disconnected' : `${crm} was disconnected`,
  token_revoked: isConnected ? 'an earlier CRM connection stopped being accepted' : `${crm} stopped accepting the connection`,
  plan: 'the plan no longer includes the CRM integration',
  account_deleted: 'the account is being deleted',
});

/**
 * The CRM whose consent page the owner was just sent to (this tab only): a
 * return without a connection names it and keeps it chosen, where the page
 * alone would only know "your CRM" among several.
 */
const TRIED_CRM_KEY = 'crm-connect-tried';

const returnNotices = (crm: string): Record<string, string> => ({
  state: `That connection attempt expired or was already used. Start again with Connect ${crm}.`,
  denied: `The connection was cancelled in ${crm}. Nothing changed.`,
  exchange: `${crm} did not complete the connection. Try again in a minute.`,
});

/** The CRM page (docs/crm.md): the account's one CRM connection (HubSpot, Pipedrive or Salesforce), and per product its settings, schedule, preview and runs. */
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

/** The CRM the page is about: the connected one, else the lost one, else the only one offered. */
function crmNameOf(overview: CrmOverview): string {
  const provider = overview.connection?.provider ?? overview.lostConnection?.provider ?? (overview.providers.length === 1 ? overview.providers[0]!.provider : null);
  return overview.providers.find((each) => each.provider === provider)?.label ?? (provider ? provider : 'your CRM');
}

function CrmOverviewView({ overview, productId }: { overview: CrmOverview; productId: number | null }) {
  return (
    <CrmNameContext.Provider value={crmNameOf(overview)}>
      <CrmOverviewSections overview={overview} productId={productId} />
    </CrmNameContext.Provider>
  );
}

function CrmOverviewSections({ overview, productId }: { overview: CrmOverview; productId: number | null }) {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const crm = crmNameOf(overview);
  if (!overview.planHasCrm) {
    return (
      <Alert color="blue" title="The CRM integration comes with the Growth and Scale plans">
        It researches your best CRM leads (HubSpot, Pipedrive or Salesforce) on a schedule and writes the research back into the CRM. You are on the {planLabel(overview.plan)} plan.{' '}
        <Anchor component={Link} to="/billing">
          Change your plan on the Billing page
        </Anchor>
        .
      </Alert>
    );
  }
  if (!overview.configured) {
    return (
      <Alert color="yellow" title="No CRM is configured on this server">
        An operator must configure a CRM app: HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET, PIPEDRIVE_CLIENT_ID and PIPEDRIVE_CLIENT_SECRET, or SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET.
      </Alert>
    );
  }
  if (overview.products.length === 0 || productId === null) {
    return (
      <Text>
        The CRM integration works per product. <Anchor component={Link} to="/keys">Create a key with its product</Anchor> first.
      </Text>
    );
  }
  const error = params.get('error');
  const tried = error && !overview.connection ? overview.providers.find((each) => each.provider === sessionStorage.getItem(TRIED_CRM_KEY)) : undefined;
  const returnedFrom = tried?.label ?? crm;
  return (
    <Stack>
      {params.get('connected') && overview.connection && <FormNotice>{crm} {portalNoun(overview.connection.provider)} {overview.connection.portalId} is connected.</FormNotice>}
      {error && returnNotices(returnedFrom)[error] && (
        <Alert color="red" role="alert" title={`${returnedFrom} is not connected`}>
          {returnNotices(returnedFrom)[error]}
        </Alert>
      )}
      <ConnectionCard overview={overview} productId={productId} tried={tried?.provider ?? null} />
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

/** What each CRM calls the thing an account connects. */
const portalNoun = (provider: CrmOverview['providers'][number]['provider']) => ({ hubspot: 'portal', pipedrive: 'company', salesforce: 'org' })[provider];

function ConnectionCard({ overview, productId, tried }: { overview: CrmOverview; productId: number; tried: CrmOverview['providers'][number]['provider'] | null }) {
  const [connectError, setConnectError] = useState<Error | null>(null);
  const [isConnecting, setConnecting] = useState(false);
  const [isConfirming, setConfirming] = useState(false);
  const disconnect = useDisconnect();
  const { connection, lostConnection, providers } = overview;
  // A lost connection's CRM is offered first, else the one just tried: connecting it (again) is the likely next step.
  const [chosen, setChosen] = useState(lostConnection?.provider ?? tried ?? providers[0]!.provider);
  const chosenLabel = providers.find((each) => each.provider === chosen)?.label ?? chosen;
  const crm = crmNameOf(overview);
  const connect = () => {
    setConnecting(true);
    startConnect(productId, chosen).then(
      ({ authorizeUrl }) => {
        sessionStorage.setItem(TRIED_CRM_KEY, chosen);
        window.location.assign(authorizeUrl);
      },
      (error: Error) => {
        setConnecting(false);
        setConnectError(error);
      },
    );
  };
  return (
    <Card withBorder>
      <Title order={2} size="h3">
        {connection ? `${crm} connection` : 'CRM connection'}
      </Title>
      {connection ? (
        <Stack gap="xs" mt="xs">
          <Text>
            Connected to {crm} {portalNoun(connection.provider)} {connection.portalId} by {connection.connectedBy} ({crm} user {connection.connectedUser}) on{' '}
            {formatDateTime(connection.connectedAt)}. All your products share this connection.
            {providers.length > 1 && ' To use another CRM, disconnect this one first.'}
          </Text>
          <Group>
            <Button variant="default" color="red" onClick={() => setConfirming(true)}>
              Disconnect {crm}
            </Button>
          </Group>
          <Modal opened={isConfirming} onClose={() => setConfirming(false)} title={`Disconnect ${crm}?`}>
            <Stack>
              <Text>
                Disconnecting revokes our access to {crm} and pauses the CRM integration of every product. Your settings stay, and so do the fields and notes already
                written in {crm}. Removing the app in {crm}&apos;s own settings is a separate step.
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
            <Alert color="red" role="alert" title={`${crm} stopped accepting the connection`}>
              The connection to {portalNoun(lostConnection.provider)} {lostConnection.portalId} was revoked or the app uninstalled in {crm}. The integrations are paused; connect
              again to resume them.
            </Alert>
          )}
          <Text>Connect your CRM once; every product of your account uses the connection.</Text>
          {providers.length > 1 && (
            <Radio.Group label="Your CRM" value={chosen} onChange={(value) => setChosen(value as typeof chosen)}>
              <Group mt="xs">
                {providers.map((each) => (
                  <Radio key={each.provider} value={each.provider} label={each.label} />
                ))}
              </Group>
            </Radio.Group>
          )}
          <Group>
            <Button loading={isConnecting} onClick={connect}>
              Connect {chosenLabel}
            </Button>
          </Group>
          <FormError error={connectError} />
        </Stack>
      )}
    </Card>
  );
}

function ProductSection({ productId, isConnected }: { productId: number; isConnected: boolean }) {
  const crm = useCrmName();
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
                Paused because {pauseReasons(crm, isConnected)[data.settings.pausedReason] ?? data.settings.pausedReason}.
              </Text>
            )}
            {data.chatWebhookDisabled && (
              <Alert color="yellow" mt="xs" title="Chat messages are off">
                The chat webhook answered “{data.chatWebhookDisabled.reason}”. Set a new webhook URL to get messages again.
              </Alert>
            )}
            <Group mt="xs" justify="space-between">
              <Text>{data.nextRunAt ? `Next run: ${formatDateTime(data.nextRunAt)} (runs may start up to 10 minutes late).` : `No run is scheduled: the integration is paused or ${crm} is not connected.`}</Text>
              <Button disabled={!data.nextRunAt} loading={runNow.isPending} onClick={() => runNow.mutate()}>
                Run now
              </Button>
            </Group>
            {runNow.isSuccess && <FormNotice>{runNowText(runNow.data, data.runs)}</FormNotice>}
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
          {isConnected && <FieldsSetupCard productId={productId} />}
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

/**
 * Run now's notice, as the run is now: the runs list (polled while a run is queued) says when a queued run
 * moves up or starts, so the notice never goes on saying it waits once it runs.
 */
function runNowText(started: CrmRunStarted, runs: CrmRun[]): string {
  const listed = runs.find((run) => run.id === started.runId);
  if ((listed ? listed.status : started.state) === 'not_run') return 'The run did not start; Last runs says why.';
  const isQueued = listed ? listed.status === 'queued' : started.state === 'queued';
  if (!isQueued) return 'The run started. Its results appear under Last runs.';
  return `The run is queued. ${queuedText(listed ? listed.place : started.place)} Its results appear under Last runs.`;
}

/** Our fields in the CRM, made before the first run; where the CRM needs an admin to make them (Salesforce), the steps. */
function FieldsSetupCard({ productId }: { productId: number }) {
  const crm = useCrmName();
  const setUp = useSetUpFields(productId);
  return (
    <Card withBorder>
      <Group justify="space-between">
        <Title order={2} size="h3">
          Our fields in {crm}
        </Title>
        <Button variant="default" loading={setUp.isPending} onClick={() => setUp.mutate()}>
          Set up the fields now
        </Button>
      </Group>
      <Text size="sm" mt="xs">
        The first run creates the fields it writes. Set them up now to see them in {crm} first, or to get the steps when {crm} needs an admin to create them.
      </Text>
      {setUp.data?.ready && <FormNotice>The fields are ready in {crm}.</FormNotice>}
      {setUp.data && !setUp.data.ready && (
        <Alert color="yellow" role="alert" mt="xs" title={`An admin must create the fields in ${crm}`}>
          <List type="ordered" size="sm">
            {setUp.data.steps.map((step, index) => (
              <List.Item key={`${index}:${step}`}>{step}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      <FormError error={setUp.error} />
    </Card>
  );
}
