import { MantineProvider, Modal, createTheme } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { queryClient } from '../lib/query-client.ts';
import { router } from './router.tsx';

const theme = createTheme({
  // Filled buttons of every colour use this shade: at 9, white text on red, blue or teal passes WCAG AA's 4.5:1 with room to spare.
  primaryShade: 9,
  // People who ask their system for less motion get dialogs without fade-ins.
  respectReducedMotion: true,
  // Every dialog's close button gets a name a screen reader can say.
  components: { Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }) },
});

export function App() {
  return (
    <MantineProvider theme={theme}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
