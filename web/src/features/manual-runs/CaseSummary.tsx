/**
 * The current case's head: its id, title and verdict, how long it has been open, the verdict buttons (the
 * same as the P F B S R keys), its assignee and its preconditions.
 */
import { Button, Card, Group, Kbd, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { sessionQuery, type ManualRunCase } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { AssigneeSelect } from '../../components/AssigneeSelect';
import { StatusBadge } from '../../components/badges';
import { toneOf } from '../../components/Tone';
import type { CaseDetails } from './useCaseDetails';
import { formatElapsed, VERDICTS, type Verdict } from './verdicts';

export function CaseSummary({
  projectId,
  runCase,
  canWrite,
  onVerdict,
  pending,
  update,
  preconditions,
}: {
  projectId: string;
  runCase: ManualRunCase;
  canWrite: boolean;
  onVerdict: (result: Verdict) => void;
  pending: boolean;
  update: CaseDetails['update'];
  preconditions: string | undefined;
}) {
  return (
    <Card withBorder>
      <Stack gap="xs">
        <CaseTitle projectId={projectId} runCase={runCase} />
        {canWrite ? <VerdictButtons result={runCase.result} onVerdict={onVerdict} pending={pending} /> : null}
        <RunCaseAssignee projectId={projectId} runCase={runCase} canWrite={canWrite} update={update} />
        {preconditions ? (
          <Text size="sm">
            <b>Preconditions:</b> {preconditions}
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}

function CaseTitle({ projectId, runCase }: { projectId: string; runCase: ManualRunCase }) {
  return (
    <Group justify="space-between" wrap="nowrap" align="flex-start">
      <Stack gap={0}>
        <Text size="xs" c="dimmed" className="mono">
          {runCase.caseRef.caseId}
          {runCase.caseChangedSince ? ' · the case changed since this run was created' : ''}
        </Text>
        <Title order={2} size="h3">
          <AnchorLink
            to="/projects/$projectId/cases/$caseId"
            params={{ projectId, caseId: runCase.caseRef._id }}
            inherit
          >
            {runCase.title}
          </AnchorLink>
        </Title>
      </Stack>
      <Stack gap={2} align="flex-end">
        <StatusBadge status={runCase.result} />
        <ElapsedTime />
      </Stack>
    </Group>
  );
}

function VerdictButtons({
  result,
  onVerdict,
  pending,
}: {
  result: ManualRunCase['result'];
  onVerdict: (result: Verdict) => void;
  pending: boolean;
}) {
  return (
    <Group gap="xs" role="group" aria-label="Verdict">
      {VERDICTS.map((v) => (
        <Tooltip key={v.result} label={`${v.label} (${v.key})`}>
          <Button
            size="xs"
            variant={result === v.result ? 'light' : 'default'}
            color={toneOf(v.result)}
            aria-pressed={result === v.result}
            onClick={() => onVerdict(v.result)}
            disabled={pending}
          >
            {v.label}{' '}
            <Kbd size="xs" ml={6}>
              {v.key}
            </Kbd>
          </Button>
        </Tooltip>
      ))}
    </Group>
  );
}

function RunCaseAssignee({
  projectId,
  runCase,
  canWrite,
  update,
}: {
  projectId: string;
  runCase: ManualRunCase;
  canWrite: boolean;
  update: CaseDetails['update'];
}) {
  const session = useQuery(sessionQuery());
  const me = session.data?.user?.id;
  return (
    <Group gap="xs" align="flex-end">
      {canWrite ? (
        <AssigneeSelect
          projectId={projectId}
          value={runCase.assignee?._id ?? null}
          current={runCase.assignee}
          onChange={(userId) => update.mutate({ assigneeUserId: userId })}
          disabled={update.isPending}
          size="xs"
          w={240}
        />
      ) : (
        <Text size="sm">
          Assignee:{' '}
          {runCase.assignee ? `${runCase.assignee.firstName} ${runCase.assignee.lastName}` : 'nobody'}
        </Text>
      )}
      {canWrite && me && runCase.assignee?._id !== me ? (
        <Button
          size="compact-xs"
          variant="default"
          mb={4}
          onClick={() => update.mutate({ assigneeUserId: me })}
        >
          Assign to me
        </Button>
      ) : null}
    </Group>
  );
}

/** How long the case has been open (its panel is mounted per case), ticking every second. */
function ElapsedTime() {
  const [openedAt] = useState(Date.now);
  const [now, setNow] = useState(openedAt);
  const ticker = useInterval(() => setNow(Date.now()), 1000);
  useEffect(() => {
    ticker.start();
    return ticker.stop;
  }, [ticker]);
  const elapsed = Math.max(0, Math.round((now - openedAt) / 1000));
  return (
    <Text size="sm" className="mono" aria-label={`Open for ${formatElapsed(elapsed)}`} role="timer">
      {formatElapsed(elapsed)}
    </Text>
  );
}
