/** One row of the run's list each: a section title, a failure group, a spec file, a test. */
import { ActionIcon, Badge, Box, Group, Text, Title, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import type { RunFailure } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatDuration, formatNumber } from '../../components/format';
import type { Row } from '../../components/runRows';
import { QuarantineNote } from '../../components/QuarantineNote';
import { SignatureLink } from '../../components/SignatureLink';
import { ToneText, toneOf } from '../../components/Tone';
import { VerdictBadge } from '../../components/VerdictBadge';
import classes from './RunPage.module.css';

type RowOf<K extends Row['kind']> = Extract<Row, { kind: K }>;

export function SectionRow({ row }: { row: RowOf<'section'> }) {
  return (
    <Group gap="xs" pt="md" pb={6} className={classes.section}>
      <Title order={2} size="h4">
        {row.title}
      </Title>
      <Badge variant="light" color="gray" size="sm">
        {formatNumber(row.count)}
      </Badge>
    </Group>
  );
}

export function GroupRow({
  row,
  collapsed,
  onToggle,
  projectId,
  signatures,
}: {
  row: RowOf<'group'>;
  collapsed: boolean;
  onToggle: () => void;
  projectId: string;
  /** The error groups of its tests: the first, and how many. */
  signatures?: { first: { id: string; text: string }; count: number } | undefined;
}) {
  return (
    <Group gap="xs" wrap="nowrap" className={classes.group}>
      <UnstyledButton
        aria-expanded={!collapsed}
        onClick={onToggle}
        className={classes.groupToggle}
        style={{ flex: 1, minWidth: 0 }}
      >
        <Group gap="xs" wrap="nowrap">
          {collapsed ? <IconChevronRight size={14} /> : <IconChevronDown size={14} />}
          <ToneText
            size="sm"
            fw={600}
            tone={toneOf(row.section)}
            lineClamp={1}
            className="mono"
            style={{ flex: 1 }}
          >
            {row.message}
          </ToneText>
          <Text size="xs" c="dimmed">
            {formatNumber(row.count)} {row.count === 1 ? 'test' : 'tests'}
          </Text>
        </Group>
      </UnstyledButton>
      {signatures ? (
        <Group gap={4} wrap="nowrap">
          <SignatureLink projectId={projectId} signature={signatures.first} />
          {signatures.count > 1 ? (
            <Text size="xs" c="dimmed">
              +{signatures.count - 1}
            </Text>
          ) : null}
        </Group>
      ) : null}
    </Group>
  );
}

export function FileRow({
  row,
  projectId,
  runId,
  onToggle,
}: {
  row: RowOf<'file'>;
  projectId: string;
  runId: string;
  onToggle: () => void;
}) {
  const { spec } = row;
  return (
    <Group gap="xs" wrap="nowrap" className={classes.row}>
      <ActionIcon
        variant="subtle"
        size="sm"
        aria-label={`${row.expanded ? 'Collapse' : 'Expand'} ${spec.file}`}
        aria-expanded={row.expanded}
        onClick={onToggle}
      >
        {row.expanded ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
      </ActionIcon>
      <AnchorLink
        to="/projects/$projectId/runs/$runId/suites/$suiteId"
        params={{ projectId, runId, suiteId: spec.file }}
        size="sm"
        className="mono"
        lineClamp={1}
        style={{ flex: 1 }}
      >
        {spec.file}
      </AnchorLink>
      <Text size="xs" c="dimmed">
        {row.shown === spec.total ? `${spec.total} tests` : `${row.shown} of ${spec.total} tests`}
      </Text>
      {spec.failed ? (
        <StatusBadge status="failed" size="xs" />
      ) : spec.flaky ? (
        <StatusBadge status="flaky" size="xs" />
      ) : null}
      <Text size="xs" c="dimmed" w={70} ta="right">
        {formatDuration(spec.durationMs)}
      </Text>
    </Group>
  );
}

export function TestRow({
  row,
  projectId,
  runId,
  failure,
}: {
  row: RowOf<'test'>;
  projectId: string;
  runId: string;
  /** Its verdict and signature, when it failed and the run's failures are known. */
  failure?: RunFailure | undefined;
}) {
  const { test } = row;
  return (
    <Group gap="sm" wrap="nowrap" pl={row.depth === 1 ? 28 : 40} className={classes.row}>
      <StatusBadge status={test.outcome} size="xs" />
      <Box style={{ flex: 1, minWidth: 0 }}>
        <AnchorLink
          to="/projects/$projectId/runs/$runId/tests/$caseId"
          params={{ projectId, runId, caseId: test.testCaseId }}
          search={test.project ? { project: test.project } : {}}
          size="sm"
          lineClamp={1}
          className={classes.testLink}
        >
          {test.titlePath.join(' › ')}
        </AnchorLink>
        {row.depth === 1 ? (
          <Text size="xs" c="dimmed" lineClamp={1} className="mono">
            {row.file}
          </Text>
        ) : null}
      </Box>
      {failure ? <VerdictBadge verdict={failure.verdict} /> : null}
      {failure ? <QuarantineNote quarantine={failure.quarantine} /> : null}
      {failure?.signature && row.depth === 2 ? (
        <SignatureLink projectId={projectId} signature={failure.signature} />
      ) : null}
      {test.project ? (
        <Badge variant="outline" color="gray" size="xs" radius="sm">
          {test.project}
        </Badge>
      ) : null}
      {test.attempts > 1 ? (
        <Text size="xs" c="dimmed" w={70} ta="right">
          {test.attempts} attempts
        </Text>
      ) : (
        <Box w={70} />
      )}
      <Text size="xs" c="dimmed" w={70} ta="right">
        {formatDuration(test.durationMs)}
      </Text>
    </Group>
  );
}
