import { Badge, MantineProvider, Modal, createTheme, darken, luminance, type CSSVariablesResolver } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { styleNonce } from '../lib/csp.ts';
import { queryClient } from '../lib/query-client.ts';
import { router } from './router.tsx';

const theme = createTheme({
  // Filled buttons of every colour use this shade: at 9, white text on red, blue or teal passes WCAG AA's 4.5:1 with room to spare.
  primaryShade: 9,
  // People who ask their system for less motion get dialogs without fade-ins.
  respectReducedMotion: true,
  // Every dialog's close button gets a name a screen reader can say.
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }),
    // Mantine draws a dialog's title bar as <header>; in a portal at the top of the page that is a second `banner`
    // landmark beside the page's own (axe landmark-no-duplicate-banner). The dialog is named by its title already.
    ModalHeader: Modal.Header.extend({ defaultProps: { component: 'div' } as Record<string, unknown> }),
    // A badge is one or two words: a narrow table column must make room for it, never cut it to "ACT…".
    Badge: Badge.extend({ styles: { root: { flexShrink: 0, minWidth: 'max-content' } } }),
  },
});

/**
 * Text colours of the light scheme that WCAG AA's 4.5:1 needs, for every colour at once rather than component by component.
 * Mantine writes light-variant text (alert titles, light and subtle buttons, light badges) in shade 9 on shade 1: yellow
 * gives 2.7:1, orange 3.6:1, red 4.5:1 only just. Shade 9 darkened by 30% gives at least 5:1 for every colour of the
 * palette. Field errors are red 6 on white by default (3.3:1); red 9 gives 5.5:1.
 */
export const LIGHT_TEXT_DARKENING = 0.3;

/**
 * Filled buttons and badges carry white text. Mantine's hover of a filled colour at shade 9 is the lighter shade 8:
 * white on teal 8 gives 3.9:1 (the key dialog's "Copied" under the pointer), on green or orange 8 less still. Here a
 * filled colour is shade 9, darkened until white on it reaches 4.5:1 (yellow, orange, lime and green need it), and
 * its hover is darker again, never lighter.
 */
const FILLED_HOVER_DARKENING = 0.1;
const AA_CONTRAST = 4.5;
const contrastWithWhite = (colour: string) => 1.05 / (luminance(colour) + 0.05);
function readableFilled(shade9: string): string {
  let colour = shade9;
  for (let darkening = 0.05; contrastWithWhite(colour) < AA_CONTRAST && darkening < 1; darkening += 0.05) colour = darken(shade9, darkening);
  return colour;
}

const readableTextColours: CSSVariablesResolver = (mantineTheme) => ({
  variables: {},
  dark: {},
  light: {
    ...Object.fromEntries(
      Object.entries(mantineTheme.colors).flatMap(([name, shades]) => {
        const filled = readableFilled(shades[9]);
        return [
          [`--mantine-color-${name}-light-color`, darken(shades[9], LIGHT_TEXT_DARKENING)],
          [`--mantine-color-${name}-filled`, filled],
          [`--mantine-color-${name}-filled-hover`, darken(filled, FILLED_HOVER_DARKENING)],
        ];
      }),
    ),
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
});

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={readableTextColours} getStyleNonce={styleNonce}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
