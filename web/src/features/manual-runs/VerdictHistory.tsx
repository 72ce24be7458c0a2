/** Every verdict and change of a run case, newest first: who, when, how long it took, what changed. */
import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { ManualRunCase } from '../../api/queries';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatTime } from '../../components/format';
import { formatElapsed } from './verdicts';

export function VerdictHistory({ history }: { history: ManualRunCase['history'] }) {
  return (
    <Card withBorder>
      <Stack gap={4}>
        <Title order={3} size="h4">
          Verdict history
        </Title>
        {history.length === 0 ? (
          <Text size="sm" c="dimmed">
            No verdict yet.
          </Text>
        ) : (
          [...history].reverse().map((entry, n) => (
            <Group key={n} gap="xs">
              {entry.result ? (
                <StatusBadge status={entry.result} size="xs" />
              ) : (
                <Badge size="xs" variant="outline" color="gray">
                  {entryKind(entry)}
                </Badge>
              )}
              <Text size="xs">
                {entry.by ? `${entry.by.firstName} ${entry.by.lastName}` : 'Someone'} ·{' '}
                <span title={formatTime(entry.at)}>{formatAgo(entry.at)}</span>
                {entry.assignee !== undefined
                  ? entry.assignee
                    ? ` · assigned to ${entry.assignee.firstName} ${entry.assignee.lastName}`
                    : ' · unassigned'
                  : ''}
                {entry.elapsed !== null ? ` · ${formatElapsed(entry.elapsed)}` : ''}
                {entry.comment ? ` · “${entry.comment}”` : ''}
                {entry.evidence ? ` · ${entry.evidence.originalFileName}` : ''}
              </Text>
            </Group>
          ))
        )}
      </Stack>
    </Card>
  );
}

/**
 * What an entry without a verdict changed: evidence attached or removed, the assignee, or the step
 * results, comment and issues.
 */
function entryKind(entry: Pick<ManualRunCase['history'][number], 'mode' | 'assignee' | 'evidence'>): string {
  if (entry.evidence) return `evidence ${entry.evidence.action}`;
  if (entry.assignee !== undefined) return 'assignee';
  return entry.mode === 'detailed' ? 'details' : 'update';
}
