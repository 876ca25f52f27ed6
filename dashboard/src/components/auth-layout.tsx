import { Alert, Anchor, Container, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';

/** The frame of the signed-out pages: one heading, one form, links between them. */
export function AuthLayout({ title, children, links }: { title: string; children: ReactNode; links?: Array<{ to: string; label: string }> }) {
  useEffect(() => {
    document.title = `${title} · Prospect enrichment`;
  }, [title]);
  return (
    <Container size={420} py={60} component="main">
      <Text fw={700} ta="center" mb="xs">
        Prospect enrichment
      </Text>
      <Title order={1} ta="center" size="h2" mb="lg">
        {title}
      </Title>
      <Paper withBorder p="lg" radius="md">
        <Stack>{children}</Stack>
      </Paper>
      {links && (
        <Stack gap={4} mt="md" align="center">
          {links.map((link) => (
            <Anchor key={link.to} component={Link} to={link.to} size="sm">
              {link.label}
            </Anchor>
          ))}
        </Stack>
      )}
    </Container>
  );
}

export function FormError({ error }: { error: Error | null }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" title="That did not work">
      {error.message}
    </Alert>
  );
}

export function FormNotice({ children }: { children: ReactNode }) {
  return (
    <Alert color="teal" role="status">
      {children}
    </Alert>
  );
}
