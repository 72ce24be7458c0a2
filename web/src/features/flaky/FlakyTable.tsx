/**
 * The flaky tests as a table: test, flaky and fail rates, executions, last flaky day, the trend strip, and
 * for writers a button that quarantines the test (on every platform).
 */
import { Badge, Button, Table, Text } from '@mantine/core';
import { useState } from 'react';
import type { ExplorerData } from '../../api/queries';
import { useCanWrite } from '../../api/role';
import { AnchorLink } from '../../components/AnchorLink';
import { formatPercent } from '../../components/format';
import { QuarantineDialog, type QuarantineTarget } from '../../components/QuarantineDialog';
import { badgeToneVars } from '../../components/Tone';
import { FlakyStrip } from './FlakyStrip';
import { flakyKey, lastDay } from './flakyTrend';

type FlakyTest = ExplorerData['testCases'][number];

interface Trend {
  /** The days each test was flaky on, by `flakyKey`; none while the summary loads. */
  flakyDays: ReadonlyMap<string, readonly string[]>;
  windowDays: string[];
  /** Whether the strips can be drawn (the summary has arrived). */
  ready: boolean;
}

function FlakyRow({
  test,
  projectId,
  trend,
  onQuarantine,
}: {
  test: FlakyTest;
  projectId: string;
  trend: Trend;
  /** Absent: the person may not quarantine. */
  onQuarantine: ((target: QuarantineTarget) => void) | null;
}) {
  const dates = trend.flakyDays.get(flakyKey(test.specName, test.title)) ?? [];
  const flakyOn = new Set(dates.map((date) => date.slice(0, 10)));
  return (
    <Table.Tr key={test.testCaseId}>
      <Table.Td maw={420}>
        <AnchorLink
          to="/projects/$projectId/runs/$runId/tests/$caseId"
          params={{ projectId, runId: test.lastRun.testRunId, caseId: test.testCaseId }}
          size="sm"
          lineClamp={1}
        >
          {test.fullTitle}
        </AnchorLink>
        <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
          {test.specName}
        </Text>
      </Table.Td>
      <Table.Td ta="right">
        <Badge color="orange" variant="light" vars={badgeToneVars('orange')}>
          {formatPercent(test.flakyRate)}
        </Badge>
      </Table.Td>
      <Table.Td ta="right">{formatPercent(test.failureRate)}</Table.Td>
      <Table.Td ta="right">{test.executions}</Table.Td>
      <Table.Td>
        <Text size="sm">{lastDay(dates) ?? '—'}</Text>
      </Table.Td>
      <Table.Td>
        {trend.ready ? <FlakyStrip windowDays={trend.windowDays} flakyOn={flakyOn} /> : null}
      </Table.Td>
      {onQuarantine ? (
        <Table.Td>
          <Button
            size="compact-sm"
            variant="default"
            aria-label={`Quarantine ${test.fullTitle}`}
            onClick={() =>
              onQuarantine({ testCaseId: test.testCaseId, title: test.fullTitle, project: null })
            }
          >
            Quarantine
          </Button>
        </Table.Td>
      ) : null}
    </Table.Tr>
  );
}

export function FlakyTable({
  tests,
  projectId,
  days,
  trend,
}: {
  tests: FlakyTest[];
  projectId: string;
  days: number;
  trend: Trend;
}) {
  const canWrite = useCanWrite(projectId);
  const [target, setTarget] = useState<QuarantineTarget | null>(null);
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table striped highlightOnHover aria-label="Flaky tests">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Test</Table.Th>
            <Table.Th ta="right">Flaky rate</Table.Th>
            <Table.Th ta="right">Fail rate</Table.Th>
            <Table.Th ta="right">Executions</Table.Th>
            <Table.Th>Last flaky</Table.Th>
            <Table.Th>Trend ({days} days)</Table.Th>
            {canWrite ? <Table.Th>Actions</Table.Th> : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tests.map((test) => (
            <FlakyRow
              key={test.testCaseId}
              test={test}
              projectId={projectId}
              trend={trend}
              onQuarantine={canWrite ? setTarget : null}
            />
          ))}
        </Table.Tbody>
      </Table>
      {target ? (
        <QuarantineDialog projectId={projectId} target={target} onClose={() => setTarget(null)} />
      ) : null}
    </Table.ScrollContainer>
  );
}
