import { Badge, Tooltip } from '@mantine/core';
import type { FailureVerdict } from '../api/queries';
import { badgeToneVars } from './Tone';

/** Each verdict in words, its tone, and what it means (the badge's tooltip). */
export const VERDICTS: Record<FailureVerdict, { label: string; tone: string; meaning: string }> = {
  new: {
    label: 'new',
    tone: 'red',
    meaning: 'Not failing with this error on the base branch: most likely caused by this change',
  },
  'failing-on-base': {
    label: 'failing on base',
    tone: 'blue',
    meaning: "The base branch's latest run fails it too: it was already broken",
  },
  'known-flaky': {
    label: 'known flaky',
    tone: 'orange',
    meaning: 'It was flaky recently: a retry may pass',
  },
  quarantined: {
    label: 'quarantined',
    tone: 'gray',
    meaning: 'The test is quarantined for this error: the failure does not count against the quality gate',
  },
};

export const VERDICT_ORDER: readonly FailureVerdict[] = [
  'new',
  'failing-on-base',
  'known-flaky',
  'quarantined',
];

/** A failure's verdict against its run's base, in words and tone; the tooltip says what it means. */
export function VerdictBadge({ verdict, size = 'xs' }: { verdict: FailureVerdict; size?: 'xs' | 'sm' }) {
  const { label, tone, meaning } = VERDICTS[verdict];
  return (
    <Tooltip label={meaning} openDelay={300}>
      <Badge color={tone} variant="light" size={size} radius="sm" vars={badgeToneVars(tone)}>
        {label}
      </Badge>
    </Tooltip>
  );
}
