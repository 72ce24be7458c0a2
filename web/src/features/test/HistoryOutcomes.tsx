/** One coloured cell per execution of the test, oldest first, each a link to that run's test page. */
import { Group, Tooltip } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { TestCaseDetail } from '../../api/queries';
import { formatTime } from '../../components/format';
import { OUTCOME_COLORS } from '../../theme';
import classes from './TestPage.module.css';

export type HistoryItem = NonNullable<TestCaseDetail['history']>['items'][number];

export interface HistoryTarget {
  projectId: string;
  caseId: string;
  runId: string;
  platform: string | null;
}

export function HistoryOutcomes({ items, target }: { items: HistoryItem[]; target: HistoryTarget }) {
  const { projectId, caseId, runId, platform } = target;
  return (
    <Group gap={3} aria-label="Outcome of each execution" role="list">
      {items.map((item) => (
        <Tooltip
          key={`${item.runId}:${item.project ?? ''}`}
          label={`Run #${item.counter} · ${item.outcome} · ${item.branch ?? 'no branch'}${item.project ? ` · ${item.project}` : ''} · ${formatTime(item.startedAt)}`}
        >
          <Link
            role="listitem"
            to="/projects/$projectId/runs/$runId/tests/$caseId"
            params={{ projectId, runId: item.runId, caseId }}
            search={item.project ? { project: item.project } : {}}
            aria-label={`Run #${item.counter}: ${item.outcome}`}
            className={classes.cell}
            data-current={item.runId === runId && (item.project ?? null) === platform ? 'true' : undefined}
            style={{
              backgroundColor: `var(--mantine-color-${OUTCOME_COLORS[item.outcome] ?? 'gray'}-6)`,
            }}
          />
        </Tooltip>
      ))}
    </Group>
  );
}
