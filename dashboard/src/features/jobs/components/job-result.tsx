import { Anchor, Avatar, Badge, Card, Group, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useId, type ReactNode } from 'react';
import type { z } from 'zod';
import { displayPlace } from '../../../../../domain/enrichment/display-text.ts';
import { listInWords, providerLabel, sourceCallLabel } from '../../../../../domain/enrichment/source-labels.ts';
import { ZMeta, type ZDecisionMaker, type ZPost, type ZResearchData } from '../../../../../domain/research/reply.ts';
import { formatDateTime } from '../../../lib/format.ts';

type ResearchData = z.infer<typeof ZResearchData>;
type Post = z.infer<typeof ZPost>;

/** A completed job as a salesperson reads it: the person, the company, the people around them. */
export function JobResult({ data, meta }: { data: ResearchData; meta: unknown }) {
  return (
    <Stack gap="lg">
      <ProspectCard prospect={data.prospect} />
      <CompanyCard company={data.company} />
      <DecisionMakers people={data.decision_makers} />
      <Provenance meta={meta} />
    </Stack>
  );
}

/** Where the data came from, in words: `_meta` is informational (spec), so it is read leniently and never shown as JSON. */
function Provenance({ meta }: { meta: unknown }) {
  const parsed = ZMeta.safeParse(meta);
  if (!parsed.success || meta === null || meta === undefined) return null;
  const { prospect, company, ai } = parsed.data;
  const lines: string[] = [];
  if (prospect) {
    const source = prospect.source ? ` (${providerLabel(prospect.source)})` : '';
    lines.push(
      prospect.from_cache
        ? `Prospect: from stored data, ${prospect.cache_age_days === 0 ? 'fetched today' : `${prospect.cache_age_days} ${prospect.cache_age_days === 1 ? 'day' : 'days'} old`}${source}.`
        : `Prospect: fetched fresh${source}.`,
    );
  }
  if (company) {
    const sources = company.apis_called.length > 0 ? ` from ${listInWords(company.apis_called.map(sourceCallLabel))}` : '';
    lines.push(company.from_cache ? 'Company: from stored data.' : `Company: fetched fresh${sources}.`);
  }
  if (ai) lines.push(ai.generated ? `Insights: written for this job${ai.source ? ` (${providerLabel(ai.source)})` : ''}.` : 'Insights: from stored data.');
  if (lines.length === 0) return null;
  return (
    <section aria-label="Where this data comes from">
      <Text size="sm" fw={600}>
        Where this data comes from
      </Text>
      <List size="sm" c="dimmed">
        {lines.map((line) => (
          <List.Item key={line}>{line}</List.Item>
        ))}
      </List>
    </section>
  );
}

function ProspectCard({ prospect }: { prospect: ResearchData['prospect'] }) {
  return (
    <ResultSection title="Prospect">
      {!prospect ? (
        <Text c="dimmed">The prospect was not found in any data source.</Text>
      ) : (
        <Stack>
          <Group>
            <Avatar src={prospect.photo} alt={prospect.photo ? `Photo of ${prospect.name ?? 'the prospect'}` : undefined} size="lg" radius="xl">
              {initials(prospect.name)}
            </Avatar>
            <div>
              <Text fw={700}>{prospect.name ?? prospect.email}</Text>
              <Text size="sm">{[prospect.title, prospect.company].filter(Boolean).join(' at ') || 'No title known'}</Text>
              {prospect.social_url && (
                <Anchor href={prospect.social_url} target="_blank" rel="noreferrer" size="sm">
                  Profile
                </Anchor>
              )}
            </div>
          </Group>
          <Field label="Summary">{prospect.summary}</Field>
          <ListField label="Opening talk" items={prospect.opening_talk} />
          <Posts label="Recent posts" posts={prospect.posts} />
        </Stack>
      )}
    </ResultSection>
  );
}

function CompanyCard({ company }: { company: ResearchData['company'] }) {
  return (
    <ResultSection title="Company">
      {!company ? (
        <Text c="dimmed">No company data was found.</Text>
      ) : (
        <Stack>
          <div>
            <Text fw={700}>{company.name}</Text>
            <Text size="sm">{[company.industry, company.hq, company.employees && `${company.employees} employees`, company.revenue].filter(Boolean).join(' · ')}</Text>
            {company.website && (
              <Anchor href={company.website} target="_blank" rel="noreferrer" size="sm">
                {company.website}
              </Anchor>
            )}
          </div>
          <Field label="Description">{company.description}</Field>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <ListField label="Synergy points" items={company.synergy_points} />
            <ListField label="Discovery questions" items={company.discovery_questions} />
            <ListField label="Problems they solve" items={company.problems} />
            <ListField label="Services" items={company.services} />
            <ListField label="Ideal customers" items={company.icp} />
            <ListField label="Competitive insights" items={company.insights} />
          </SimpleGrid>
          {company.technologies && company.technologies.length > 0 && (
            <div>
              <Text fw={600} size="sm" mb={4}>
                Technologies
              </Text>
              <Group gap={6}>
                {company.technologies.map((technology) => (
                  <Badge key={technology} variant="outline" color="gray.7">
                    {technology}
                  </Badge>
                ))}
              </Group>
            </div>
          )}
          {company.news && company.news.length > 0 && (
            <div>
              <Text fw={600} size="sm" mb={4}>
                News
              </Text>
              <List size="sm">
                {company.news.map((item) => (
                  <List.Item key={item.url}>
                    {item.date}: {item.summary}{' '}
                    <Anchor href={item.url} target="_blank" rel="noreferrer">
                      source
                    </Anchor>
                  </List.Item>
                ))}
              </List>
            </div>
          )}
          <Posts label="Company posts" posts={company.posts} />
        </Stack>
      )}
    </ResultSection>
  );
}

function DecisionMakers({ people }: { people: Array<z.infer<typeof ZDecisionMaker>> }) {
  return (
    <ResultSection title="Decision makers">
      {people.length === 0 ? (
        <Text c="dimmed">None (decision makers come with the Growth and Scale plans).</Text>
      ) : (
        <Table aria-label="Decision makers">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Title</Table.Th>
              <Table.Th scope="col">Location</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {people.map((person) => (
              <Table.Tr key={person.id}>
                <Table.Th scope="row">
                  <Anchor href={person.social_url} target="_blank" rel="noreferrer">
                    {person.full_name}
                  </Anchor>
                </Table.Th>
                <Table.Td>{person.position_title}</Table.Td>
                <Table.Td>{displayPlace(person.location_text) ?? '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </ResultSection>
  );
}

/** One part of the result: a titled section a screen reader can jump to. */
function ResultSection({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <Card withBorder component="section" aria-labelledby={id}>
      <Title order={2} size="h3" id={id} mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

function Field({ label, children }: { label: string; children: string | null }) {
  return (
    <div>
      <Text fw={600} size="sm">
        {label}
      </Text>
      <Text size="sm">{children ?? <Text span c="dimmed">not available</Text>}</Text>
    </div>
  );
}

function ListField({ label, items }: { label: string; items: string[] | null }) {
  return (
    <div>
      <Text fw={600} size="sm" mb={4}>
        {label}
      </Text>
      {items && items.length > 0 ? (
        <List size="sm" spacing={4}>
          {items.map((item, index) => (
            <List.Item key={index}>{item}</List.Item>
          ))}
        </List>
      ) : (
        <Text size="sm" c="dimmed">
          not available
        </Text>
      )}
    </div>
  );
}

function Posts({ label, posts }: { label: string; posts: Post[] | null }) {
  if (!posts || posts.length === 0) return null;
  return (
    <div>
      <Text fw={600} size="sm" mb={4}>
        {label}
      </Text>
      <Stack gap="xs">
        {posts.map((post) => (
          <Card key={post.post_url} withBorder padding="xs">
            <Text size="xs" c="dimmed">
              {formatPosted(post.posted)}
              {post.reshared ? ' · reshared' : ''}
            </Text>
            <Text size="sm">{post.summary ?? post.text}</Text>
            <Anchor href={post.post_url} target="_blank" rel="noreferrer" size="xs">
              Open post
            </Anchor>
          </Card>
        ))}
      </Stack>
    </div>
  );
}

/** `YYYY-MM-DD HH:MM:SS` in UTC (docs/api.md#the-prospect), said with its time zone like every time on the page. */
const formatPosted = (posted: string) => (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(posted) ? formatDateTime(`${posted.replace(' ', 'T')}Z`) : posted);

const initials = (name: string | null) =>
  (name ?? '?')
    .split(/\s+/)
    .map((part) => part[0])
    .join('')
    .slice(0, 2)
    .toUpperCase();
