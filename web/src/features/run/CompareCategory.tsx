/** One category of a comparison (new failures, fixed…): its items, each with its test, outcomes and error group. */
import { Group, Stack, Text } from '@mantine/core';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatDuration } from '../../components/format';
import { SignatureLink } from '../../components/SignatureLink';
import type { CompareItem } from './api';

export type CategoryKey =
  'newFailures' | 'fixed' | 'stillFailing' | 'newlyFlaky' | 'added' | 'removed' | 'slower';

export const CATEGORIES: { key: CategoryKey; label: string; tone: string }[] = [
  { key: 'newFailures', label: 'New failures', tone: 'red' },
  { key: 'fixed', label: 'Fixed', tone: 'teal' },
  { key: 'stillFailing', label: 'Still failing', tone: 'red' },
  { key: 'newlyFlaky', label: 'Newly flaky', tone: 'orange' },
  { key: 'slower', label: 'Slower', tone: 'orange' },
  { key: 'added', label: 'Added', tone: 'gray' },
  { key: 'removed', label: 'Removed', tone: 'gray' },
];

function Outcomes({ item }: { item: CompareItem }) {
  return (
    <Group gap={4} wrap="nowrap">
      {item.baseOutcome ? <StatusBadge status={item.baseOutcome} size="xs" /> : <Text size="xs">—</Text>}
      <Text size="xs" c="dimmed" aria-label="then">
        →
      </Text>
      {item.outcome ? <StatusBadge status={item.outcome} size="xs" /> : <Text size="xs">—</Text>}
    </Group>
  );
}

interface Where {
  projectId: string;
  runId: string;
  baseRunId: string | null;
}

function ItemRow({ item, where, slower }: { item: CompareItem; where: Where; slower: boolean }) {
  // A removed test is only in the base: its page is there.
  const runId = item.outcome === null && where.baseRunId ? where.baseRunId : where.runId;
  return (
    <Group gap="sm" wrap="nowrap" justify="space-between">
      <div style={{ minWidth: 0 }}>
        <AnchorLink
          to="/projects/$projectId/runs/$runId/tests/$caseId"
          params={{ projectId: where.projectId, runId, caseId: item.testCaseId }}
          search={item.project ? { project: item.project } : {}}
          size="sm"
          lineClamp={1}
        >
          {item.titlePath.join(' › ')}
        </AnchorLink>
        <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
          {item.file}
          {item.project ? ` · ${item.project}` : ''}
        </Text>
      </div>
      <Group gap="xs" wrap="nowrap">
        {item.signature ? <SignatureLink projectId={where.projectId} signature={item.signature} /> : null}
        {slower ? (
          <Text size="xs" c="dimmed">
            {formatDuration(item.baseDurationMs)} → {formatDuration(item.durationMs)}
          </Text>
        ) : (
          <Outcomes item={item} />
        )}
      </Group>
    </Group>
  );
}

export function CompareCategory({
  category,
  items,
  count,
  where,
}: {
  category: CategoryKey;
  items: CompareItem[];
  count: number;
  where: Where;
}) {
  return (
    <Stack gap={6}>
      {items.map((item) => (
        <ItemRow
          key={`${item.testCaseId}:${item.project ?? ''}`}
          item={item}
          where={where}
          slower={category === 'slower'}
        />
      ))}
      {count > items.length ? (
        <Text size="xs" c="dimmed">
          And {count - items.length} more.
        </Text>
      ) : null}
    </Stack>
  );
}
