import { Anchor, Badge, List, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { SKIP_REASON_LABELS, SKIP_REASONS } from '../../../../../domain/crm/crm.ts';
import { CRM_MAPPABLE_FIELD_LABELS, LEAVE_REASON_LABELS, type MappingDecision } from '../../../../../domain/crm/write-rules.ts';
import { shortText } from '../../../../../domain/shown-text.ts';
import { formatDateTime } from '../../../lib/format.ts';
import type { CrmPreview, CrmPreviewContact, CrmRun } from '../api.ts';
import { contactErrorText } from '../contact-error-text.ts';
import { useCrmName } from '../crm-name.ts';

const RUN_STATUS: Record<CrmRun['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  credits_exhausted: 'Stopped: out of credits',
  not_run: 'Did not run',
  failed: 'Failed',
};

/** A run waiting for the account's running CRM run to end (docs/crm.md#runs-waiting-their-turn). */
export const queuedText = (place: number | null) =>
  `${place === null || place <= 1 ? 'Next to start' : `Number ${place} in line`}; it starts by itself when your account's running CRM run ends.`;

const OUTCOME: Record<CrmRun['contacts'][number]['outcome'], string> = {
  taken: 'Being researched',
  researched: 'Researched',
  failed: 'Failed',
  not_researched: 'Not researched',
  skipped: 'Skipped',
};

const skippedText = (skipped: CrmRun['counts']['skipped']) =>
  SKIP_REASONS.filter((reason) => (skipped[reason] ?? 0) > 0)
    .map((reason) => `${skipped[reason]} ${SKIP_REASON_LABELS[reason]}`)
    .join(', ') || 'none';

// A contact's name and e-mail are whatever the CRM holds, of any length: shown cut to a readable length.
const nameOf = (contact: { name: string | null; email: string | null; contactId: string }) => shortText(contact.name ?? contact.email ?? `Contact ${contact.contactId}`);

/** One mapped property's fate, as a sentence a sales person reads. */
function decisionText(decision: MappingDecision): string {
  const target = `${CRM_MAPPABLE_FIELD_LABELS[decision.field]} → ${decision.property}`;
  const now = decision.current === null ? '' : ` (now “${shortText(decision.current)}”)`;
  if (decision.action !== 'leave') return decision.action === 'fill' ? `${target}: filled` : `${target}: overwritten${now}`;
  return `${target}: left alone, ${LEAVE_REASON_LABELS[decision.reason]}${now}`;
}

/** What a contact of the next run gets written, and what is left alone. */
function WrittenCell({ contact }: { contact: CrmPreviewContact }) {
  if (contact.skipped) return <>Nothing</>;
  return (
    <List size="sm" listStyleType="none" spacing={2}>
      <List.Item>The product&apos;s properties</List.Item>
      {contact.writes.map((decision) => (
        <List.Item key={decision.property}>{decisionText(decision)}</List.Item>
      ))}
    </List>
  );
}

const nextRunText = (contact: CrmPreviewContact) =>
  contact.skipped ? `Skipped: ${SKIP_REASON_LABELS[contact.skipped]}` : contact.enrichedAt ? `Researched again (enriched ${formatDateTime(contact.enrichedAt)})` : 'Researched';

/** The contacts the next run would take, what it would write, what it costs, and those it would skip with the reason. */
export function CrmPreviewTable({ preview }: { preview: CrmPreview }) {
  const crm = useCrmName();
  const { taken, skipped } = preview;
  if (taken.length + skipped.length === 0) return <Text c="dimmed">No contact reaches the minimum score right now.</Text>;
  const rows = [...taken, ...skipped].sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity));
  return (
    <Stack gap="xs">
      <Text>
        The next run researches {taken.length === 1 ? '1 contact' : `${taken.length} contacts`} for {preview.credits === 1 ? '1 credit' : `${preview.credits} credits`}
        {preview.reEnriched > 0 ? `, ${preview.reEnriched} of them again: enriched more than ${preview.reEnrichAfterDays} days ago` : ''}.
      </Text>
      <Table.ScrollContainer minWidth={800}>
        {/* Fixed widths: the write rules' sentences wrap inside their column instead of stretching the table past the card. */}
        <Table aria-label="Contacts of the next run" striped layout="fixed" styles={{ td: { overflowWrap: 'anywhere' }, th: { overflowWrap: 'anywhere' } }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col" w="20%">
                Contact
              </Table.Th>
              <Table.Th scope="col" w="22%">
                E-mail
              </Table.Th>
              <Table.Th scope="col" w="8%">
                Score
              </Table.Th>
              <Table.Th scope="col" w="32%">
                Written to {crm}
              </Table.Th>
              <Table.Th scope="col" w="18%">
                Next run
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((contact) => (
              <Table.Tr key={contact.contactId}>
                <Table.Th scope="row">
                  <Anchor href={contact.recordUrl} target="_blank" rel="noreferrer">
                    {nameOf(contact)}
                  </Anchor>
                </Table.Th>
                <Table.Td>{contact.email ? shortText(contact.email) : '—'}</Table.Td>
                <Table.Td>{contact.score ?? '—'}</Table.Td>
                <Table.Td>
                  <WrittenCell contact={contact} />
                </Table.Td>
                <Table.Td>{nextRunText(contact)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** The last runs with their counts, and per contact its research job and its record in the CRM. */
/** Why a run ended as it did, in the CRM's name (runs recorded before there was more than one CRM said `hubspot_…`). */
function runReasonText(reason: string, crm: string): string {
  const texts: Record<string, string> = {
    crm_refused: `${crm} refused a request`, hubspot_refused: 'HubSpot refused a request',
    crm_unavailable: `${crm} could not be reached`, hubspot_unavailable: 'HubSpot could not be reached',
    crm_app_refused: `${crm} refused our app`, hubspot_app_refused: 'HubSpot refused our app',
    token_revoked: `${crm} stopped accepting the connection`,
  };
  return texts[reason] ?? reason.replaceAll('_', ' ');
}

export function CrmRuns({ runs }: { runs: CrmRun[] }) {
  const crm = useCrmName();
  if (runs.length === 0) return <Text c="dimmed">No runs yet.</Text>;
  return (
    <Stack>
      <Table.ScrollContainer minWidth={800}>
        <Table aria-label="Last runs" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Started</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Found</Table.Th>
              <Table.Th scope="col">Skipped</Table.Th>
              <Table.Th scope="col">Researched</Table.Th>
              <Table.Th scope="col">Failed</Table.Th>
              <Table.Th scope="col">Credits used</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {runs.map((run) => (
              <Table.Tr key={run.id}>
                <Table.Th scope="row">
                  {formatDateTime(run.startedAt)} {run.trigger === 'manual' ? '(Run now)' : ''}
                </Table.Th>
                <Table.Td>
                  <Badge color={run.status === 'completed' ? 'teal' : run.status === 'running' ? 'blue' : 'gray'} variant="light">
                    {RUN_STATUS[run.status]}
                  </Badge>
                  {run.reason && run.status !== 'completed' ? <Text size="xs">{runReasonText(run.reason, crm)}</Text> : null}
                  {run.status === 'queued' ? <Text size="xs">{queuedText(run.place)}</Text> : null}
                  {run.waiting ? <Text size="xs">Waiting: {run.waiting}</Text> : null}
                </Table.Td>
                <Table.Td>{run.counts.found}</Table.Td>
                <Table.Td>{skippedText(run.counts.skipped)}</Table.Td>
                <Table.Td>{run.counts.researched}</Table.Td>
                <Table.Td>{run.counts.failed}</Table.Td>
                <Table.Td>{run.counts.creditsUsed}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {runs[0] && runs[0].contacts.length > 0 && (
        <>
          <Title order={3}>Contacts of the last run</Title>
          <Table.ScrollContainer minWidth={700}>
            <Table aria-label="Contacts of the last run" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Contact</Table.Th>
                  <Table.Th scope="col">Outcome</Table.Th>
                  <Table.Th scope="col">Research job</Table.Th>
                  <Table.Th scope="col">{crm}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {runs[0].contacts.map((contact) => (
                  <Table.Tr key={contact.contactId}>
                    <Table.Th scope="row">
                      {nameOf(contact)}
                      {contact.email && contact.name ? <Text size="xs">{shortText(contact.email)}</Text> : null}
                    </Table.Th>
                    <Table.Td>
                      {contact.skipReason ? `Skipped: ${SKIP_REASON_LABELS[contact.skipReason]}` : OUTCOME[contact.outcome]}
                      {contact.error ? <Text size="xs">{contactErrorText(contact.error)}</Text> : null}
                    </Table.Td>
                    <Table.Td>
                      {contact.researchId ? (
                        <Anchor component={Link} to={`/jobs/${contact.researchId}`}>
                          {contact.researchId}
                        </Anchor>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                    <Table.Td>
                      {contact.recordUrl ? (
                        <Anchor href={contact.recordUrl} target="_blank" rel="noreferrer">
                          Contact {contact.contactId} in {crm}
                        </Anchor>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Stack>
  );
}
