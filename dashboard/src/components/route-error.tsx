import { Button, Container, Text, Title } from '@mantine/core';
import { useRouteError } from 'react-router';

/** A page that failed to load (often a lost connection while fetching its code) offers a retry, never a blank page. */
export function RouteError() {
  const error = useRouteError();
  return (
    <Container size="sm" py="xl" component="main">
      <Title order={1}>This page could not be shown</Title>
      <Text role="alert" my="md">
        {error instanceof Error ? error.message : 'Something went wrong while loading this page.'}
      </Text>
      <Button onClick={() => window.location.reload()}>Reload the page</Button>
    </Container>
  );
}
