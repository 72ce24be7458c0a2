import { createTheme, type MantineColor } from '@mantine/core';

/** Compact, for data-heavy pages (the look of Playwright's report: dense lists, quiet chrome). */
export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'sm',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  headings: { fontWeight: '600' },
  components: {
    Table: { defaultProps: { verticalSpacing: 6, horizontalSpacing: 'sm' } },
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
};
