import { Text, type TextProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { OUTCOME_COLORS } from '../theme';
import classes from './tone.module.css';

/** The tone (colour) of an outcome or status, by name: `failed` → red. */
export const toneOf = (status: string) => OUTCOME_COLORS[status] ?? 'gray';

/** Text in a tone that keeps its contrast in both themes. */
export function ToneText({
  tone,
  children,
  ...props
}: TextProps & { tone: string; children: ReactNode; title?: string; 'aria-label'?: string }) {
  return (
    <Text {...props} className={[classes.tone, props.className].filter(Boolean).join(' ')} data-tone={tone}>
      {children}
    </Text>
  );
}

/** Light and dark text colours per tone, as in tone.module.css (native light-dark(): an inline value). */
const BADGE_TEXT: Record<string, string> = {
  teal: 'light-dark(color-mix(in srgb, var(--mantine-color-teal-9) 75%, black), var(--mantine-color-teal-2))',
  red: 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-2))',
  orange:
    'light-dark(color-mix(in srgb, var(--mantine-color-orange-9) 70%, black), var(--mantine-color-orange-2))',
  gray: 'light-dark(var(--mantine-color-gray-8), var(--mantine-color-dark-0))',
  grape: 'light-dark(var(--mantine-color-grape-9), var(--mantine-color-grape-2))',
  blue: 'light-dark(var(--mantine-color-blue-9), var(--mantine-color-blue-2))',
};

/**
 * A light badge's CSS variables in a tone with WCAG AA contrast in both themes (Mantine's light variant
 * sets its text colour inline, so a class cannot change it).
 */
export const badgeToneVars = (tone: string) => () => ({
  root: { '--badge-color': BADGE_TEXT[tone] ?? BADGE_TEXT.gray ?? '' },
});
