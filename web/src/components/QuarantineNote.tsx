import { Badge, Tooltip } from '@mantine/core';
import type { RunFailure } from '../api/queries';
import { formatDate } from './format';
import { badgeToneVars } from './Tone';

/**
 * A failed test's quarantine when its error is not one the quarantine forgives (issue 32): the failure
 * counts as usual, and forgiving it would hide a new way the test fails. A forgiven failure says so with
 * its verdict (`quarantined`).
 */
export function QuarantineNote({ quarantine }: { quarantine: RunFailure['quarantine'] }) {
  if (!quarantine || quarantine.forgives) return null;
  return (
    <Tooltip
      multiline
      w={320}
      label={`The test is quarantined until ${formatDate(quarantine.expiresAt)} for other errors. This error is not one of them, so this failure counts: the quarantine would mask it if it forgave every failure.`}
    >
      <Badge
        color="orange"
        variant="outline"
        size="xs"
        radius="sm"
        tabIndex={0}
        vars={badgeToneVars('orange')}
        style={{ flex: 'none' }}
      >
        quarantine would mask this
      </Badge>
    </Tooltip>
  );
}
