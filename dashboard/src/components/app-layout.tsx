import { AppShell, Button, Group, Loader, NavLink, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { useMe } from '../features/account/api.ts';
import { ApiError } from '../lib/api-client.ts';
import { auth } from '../lib/auth.ts';
import { QueryState } from './query-state.tsx';
import { planLabel } from '../../../domain/billing/plans.ts';

const NAVIGATION = [
  { to: '/keys', label: 'API keys' },
  { to: '/jobs', label: 'Jobs' },
  { to: '/lists', label: 'Lists' },
  { to: '/usage', label: 'Usage' },
  { to: '/crm', label: 'CRM' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/agents', label: 'AI agents' },
  { to: '/billing', label: 'Billing' },
  { to: '/preferences', label: 'Preferences' },
  { to: '/account', label: 'Account' },
] as const;

/** The signed-in frame: navigation, the account, sign-out; a request without a session goes to sign-in. */
export default function AppLayout() {
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const title = NAVIGATION.find((item) => location.pathname.startsWith(item.to))?.label ?? 'API keys';
  useEffect(() => {
    document.title = `${title} · Prospect enrichment`;
  }, [title]);

  if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to="/sign-in" replace />;
  if (me.isPending) return <Loader role="status" aria-label="Loading your account" m="xl" />;

  const signOut = async () => {
    await auth.signOut().catch(() => undefined);
    queryClient.clear();
    await navigate('/sign-in');
  };

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 0 }} padding="lg">
      <AppShell.Header px="lg">
        <Group h="100%" justify="space-between">
          <Text fw={700}>Prospect enrichment</Text>
          <Group>
            {me.data && <Text size="sm">{me.data.email} · {planLabel(me.data.plan.name)} plan</Text>}
            <Button variant="default" size="xs" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      {/* Its right edge is drawn by the main area, down the whole page (app/theme.css). */}
      <AppShell.Navbar p="sm" component="nav" aria-label="Main" withBorder={false}>
        {NAVIGATION.map((item) => (
          <NavLink key={item.to} component={Link} to={item.to} label={item.label} variant="filled" active={location.pathname.startsWith(item.to) || (item.to === '/keys' && location.pathname === '/')} />
        ))}
      </AppShell.Navbar>
      <AppShell.Main className="app-main">
        <QueryState query={me} label="your account">
          {() => <Outlet />}
        </QueryState>
      </AppShell.Main>
    </AppShell>
  );
}

export function PageTitle({ children }: { children: string }) {
  return (
    <Title order={1} size="h2" mb="md">
      {children}
    </Title>
  );
}
