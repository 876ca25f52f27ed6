import { Anchor, Group, Pagination, Select, Table, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { ZJobFilter } from '../../../../../domain/dashboard/schemas.ts';
import { RESEARCH_JOB_STATUSES } from '../../../../../domain/research/job-status.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useJobs } from '../../../features/jobs/api.ts';
import { useKeys } from '../../../features/keys/api.ts';
import { formatDateTime, formatDuration } from '../../../lib/format.ts';
import { StatusBadge } from '../../../features/jobs/components/status-badge.tsx';
import { JobSource } from '../../../features/jobs/components/job-source.tsx';

export default function JobsPage() {
  const [params, setParams] = useSearchParams();
  const parsed = ZJobFilter.safeParse(Object.fromEntries(params));
  const filter = parsed.success ? parsed.data : { page: 1 };
  const jobs = useJobs(filter);
  const keys = useKeys();
  const setFilter = (name: 'status' | 'keyId' | 'page', value: string | null) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== 'page') next.delete('page');
    setParams(next);
  };

  return (
    <>
      <PageTitle>Jobs</PageTitle>
      <Group mb="md">
        <Select
          label="Status"
          placeholder="Any status"
          clearable
          data={RESEARCH_JOB_STATUSES.map((status) => ({ value: status, label: status }))}
          value={filter.status ?? null}
          onChange={(value) => setFilter('status', value)}
        />
        <Select
          label="Key"
          placeholder="Any key"
          clearable
          data={(keys.data?.keys ?? []).map((key) => ({ value: String(key.id), label: `${key.product?.name ?? 'No product'} (${key.prefix}…)` }))}
          value={filter.keyId ? String(filter.keyId) : null}
          onChange={(value) => setFilter('keyId', value)}
        />
      </Group>
      <QueryState query={jobs} label="jobs">
        {(page) =>
          page.total === 0 ? (
            <Text c="dimmed">No jobs yet. Every POST /research, every list row and every CRM contact researched appears here.</Text>
          ) : (
            <>
              <Table.ScrollContainer minWidth={800}>
                <Table aria-label="Research jobs" striped>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">E-mail</Table.Th>
                      <Table.Th scope="col">Product</Table.Th>
                      <Table.Th scope="col">From</Table.Th>
                      <Table.Th scope="col">Status</Table.Th>
                      <Table.Th scope="col">Submitted</Table.Th>
                      <Table.Th scope="col">Duration</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {page.jobs.map((job) => (
                      <Table.Tr key={job.id}>
                        <Table.Th scope="row">
                          <Anchor component={Link} to={`/jobs/${job.id}`}>
                            {job.email}
                          </Anchor>
                        </Table.Th>
                        <Table.Td>{job.productName ?? '—'}</Table.Td>
                        <Table.Td>
                          <JobSource job={job} />
                        </Table.Td>
                        <Table.Td>
                          <StatusBadge status={job.status} />
                        </Table.Td>
                        <Table.Td>{formatDateTime(job.submittedAt)}</Table.Td>
                        <Table.Td>{formatDuration(job.durationMs)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <Group justify="space-between" mt="md">
                <Text size="sm">
                  {page.total} {page.total === 1 ? 'job' : 'jobs'}
                </Text>
                <Pagination
                  total={page.pageCount}
                  value={page.page}
                  onChange={(value) => setFilter('page', String(value))}
                  getControlProps={(control) => ({ 'aria-label': `${control} page` })}
                  getItemProps={(item) => ({ 'aria-label': `Page ${item}` })}
                />
              </Group>
            </>
          )
        }
      </QueryState>
    </>
  );
}

