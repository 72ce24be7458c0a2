import { Button, createTheme, type CSSVariablesResolver, type MantineColor } from '@mantine/core';

/** Compact, for data-heavy pages (the look of Playwright's report: dense lists, quiet chrome). */
export const theme = createTheme({
  primaryColor: 'blue',
  // Links and buttons meet WCAG AA contrast (4.5:1) on both backgrounds: Mantine's default shade 6 does not.
  primaryShade: { light: 8, dark: 4 },
  // Filled buttons and badges pick dark or light text by their background's luminance (white on blue 4
  // would read at 2.5:1).
  autoContrast: true,
  defaultRadius: 'sm',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  headings: { fontWeight: '600' },
  components: {
    // autoContrast judges a primary filled button by its light-theme shade (blue 8: white text), also in the
    // dark theme, where the shade is blue 4 and white reads at 2.5:1: there, its text is black.
    Button: Button.extend({
      vars: (_theme, props) => ({
        root:
          (props.variant ?? 'filled') === 'filled' && (props.color === undefined || props.color === 'blue')
            ? { '--button-color': 'light-dark(var(--mantine-color-white), var(--mantine-color-black))' }
            : {},
      }),
    }),
    Table: { defaultProps: { verticalSpacing: 6, horizontalSpacing: 'sm' } },
    // A select's options are rendered when it opens, not kept hidden from the start: Mantine's default
    // mounts every dropdown with the page and positions each one (floating-ui reading computed styles),
    // some 20 ms of the case library's first render (nine filters), and again for the per-step selects
    // of each case a tester opens.
    Combobox: { defaultProps: { keepMounted: false } },
  },
});

/** The colour of each outcome and status, the same on every page and chart. */
export const OUTCOME_COLORS: Record<string, MantineColor> = {
  passed: 'teal',
  failed: 'red',
  flaky: 'orange',
  skipped: 'gray',
  timedOut: 'red',
  interrupted: 'grape',
  running: 'blue',
  finished: 'gray',
  // Manual verdicts (spec §4.4).
  blocked: 'orange',
  retest: 'grape',
  untested: 'gray',
};

/**
 * Dimmed text (hints, secondary columns) and form errors with WCAG AA contrast (4.5:1) on every background
 * of the app, cards, code and dialogs included: Mantine's defaults (gray 6 on white, dark 2 on dark 6, red 6
 * and red 8) fall short.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
