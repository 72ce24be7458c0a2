/**
 * Manual run execution (spec §4.4), the page a tester lives in. The run's cases in order on the left, the
 * current case's steps beside its verdict on the right. Keyboard first: J or ↓ next case, K or ↑ previous,
 * P F B S R record passed, failed, blocked, skipped, retest (with the time the case was open) and move on to
 * the next case still to test. Per-step results, a comment and linked issues are saved as the detailed
 * result; screenshots and logs are attached as evidence beside the verdict. The run is asked again every
 * 5 s, so two testers see each other's verdicts and evidence; every verdict stays in the case's history.
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Kbd,
  Progress,
  ScrollArea,
  Select,
  Grid,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useHotkeys, useInterval } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from '../../api/client';
import { sessionQuery, type ManualRunCase, type ManualRunDetail } from '../../api/queries';
import { manualCaseQuery } from '../../api/manual';
import { useCanWrite } from '../../api/role';
import { AnchorLink } from '../../components/AnchorLink';
import { AssigneeSelect } from '../../components/AssigneeSelect';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatTime } from '../../components/format';
import { toneOf } from '../../components/Tone';
import { ErrorState, LoadingState } from '../../components/states';
import { manualRunQuery, useRecordVerdict, useUpdateRunCase, type LinkedIssue } from './api';
import { RunEvidence } from './RunEvidence';
import { formatElapsed, nextToTest, step, VERDICTS, type RunCaseResult, type Verdict } from './verdicts';

const route = getRouteApi('/signed-in/projects/$projectId/manual-runs/$runId');

const ROW_HEIGHT = 44;

export function ManualRunPage() {
  const { projectId, runId } = route.useParams();
  const run = useQuery(manualRunQuery(projectId, runId));
  if (run.isPending) return <LoadingState label="Loading the run…" />;
  if (run.isError) return <ErrorState error={run.error} onRetry={() => void run.refetch()} />;
  return <Execution projectId={projectId} run={run.data} />;
}

function Execution({ projectId, run }: { projectId: string; run: ManualRunDetail }) {
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/manual-runs/$runId' });
  const canWrite = useCanWrite(projectId);
  const cases = run.testCases;
  const found = cases.findIndex((c) => c._id === search.case);
  const index = found >= 0 ? found : 0;
  const current = cases[index];
  const go = (next: number) => {
    const target = cases[next];
    if (target) void navigate({ search: { case: target._id }, replace: true });
  };

  // Elapsed time: counted from when the case was opened, in whole seconds (sent with the verdict; the
  // ticking display is ElapsedTime's, so that its tick re-renders it alone, not the run's page).
  const openedAt = useRef(Date.now());
  useEffect(() => {
    openedAt.current = Date.now();
  }, [current?._id]);

  const record = useRecordVerdict(projectId, run._id);
  const give = (result: Verdict) => {
    if (!current || !canWrite) return;
    record.mutate({
      runCase: current,
      result,
      elapsed: Math.max(0, Math.round((Date.now() - openedAt.current) / 1000)),
    });
    const results = cases.map((c, i) => (i === index ? result : c.result) as RunCaseResult);
    go(nextToTest(results, index));
  };
  // Stable for the memoised case panel: a verdict's later renders of the page (its answer, the run asked
  // again) leave the panel of the next case alone.
  const latestGive = useRef(give);
  useEffect(() => {
    latestGive.current = give;
  });
  const onVerdict = useCallback((result: Verdict) => latestGive.current(result), []);
  useHotkeys([
    ['J', () => go(step(index, 1, cases.length))],
    ['ArrowDown', () => go(step(index, 1, cases.length))],
    ['K', () => go(step(index, -1, cases.length))],
    ['ArrowUp', () => go(step(index, -1, cases.length))],
    ...VERDICTS.map((v) => [v.key, () => give(v.result)] as [string, () => void]),
  ]);

  const error = record.isError ? describeError(record.error) : null;
  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            Manual run <span className="mono">{run.runId}</span>
            {run.release ? ` · ${run.release.name}` : ''} · {run.status.replace('_', ' ')}
          </Text>
          <Title order={1} size="h2">
            {run.name}
          </Title>
        </Stack>
        <KeyHelp canWrite={canWrite} />
      </Group>
      <RunProgress run={run} />
      {error ? (
        <Alert color="red" variant="light" title={error.title} role="alert">
          {error.message}
        </Alert>
      ) : null}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 5 }}>
          <CaseList cases={cases} index={index} onPick={go} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          {current ? (
            <CurrentCase
              key={current._id}
              projectId={projectId}
              runId={run._id}
              runCase={current}
              canWrite={canWrite}
              onVerdict={onVerdict}
              pending={record.isPending}
            />
          ) : (
            <Text c="dimmed">This run has no case.</Text>
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function KeyHelp({ canWrite }: { canWrite: boolean }) {
  return (
    <Text size="xs" c="dimmed" aria-label="Keyboard shortcuts">
      <Kbd size="xs">J</Kbd>/<Kbd size="xs">K</Kbd> next/previous
      {canWrite ? (
        <>
          {' · '}
          {VERDICTS.map((v) => (
            <span key={v.key}>
              <Kbd size="xs">{v.key}</Kbd> {v.label.toLowerCase()}{' '}
            </span>
          ))}
        </>
      ) : null}
    </Text>
  );
}

const PROGRESS_PARTS = ['passed', 'failed', 'blocked', 'skipped', 'retest'] as const;

function RunProgress({ run }: { run: ManualRunDetail }) {
  const { progress } = run;
  const total = Math.max(1, progress.total);
  return (
    <Stack gap={4}>
      <Progress.Root size="lg" aria-hidden>
        {PROGRESS_PARTS.map((part) =>
          progress[part] > 0 ? (
            <Progress.Section key={part} value={(progress[part] / total) * 100} color={toneOf(part)} />
          ) : null,
        )}
      </Progress.Root>
      <Group gap="md" role="status" aria-label="Run progress">
        <Text size="sm" fw={600}>
          {progress.completed} of {progress.total} done ({progress.percentComplete}%)
        </Text>
        {[...PROGRESS_PARTS, 'untested' as const].map((part) => (
          <Text key={part} size="sm">
            {part} {progress[part]}
          </Text>
        ))}
        <Text size="sm" c="dimmed">
          pass rate {progress.passRate}%
        </Text>
      </Group>
    </Stack>
  );
}

/** The run's cases, only the rows in view rendered: a run of 2,000 cases answers a key at once. */
function CaseList({
  cases,
  index,
  onPick,
}: {
  cases: ManualRunCase[];
  index: number;
  onPick: (i: number) => void;
}) {
  const viewport = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({
    count: cases.length,
    getScrollElement: () => viewport.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  useEffect(() => {
    rows.scrollToIndex(index, { align: 'auto' });
  }, [index, rows]);
  return (
    <Card withBorder p={0}>
      <ScrollArea h="calc(100vh - 260px)" viewportRef={viewport} type="auto">
        <div
          role="listbox"
          aria-label="Cases of the run"
          // One handler for every row (rows stay memoised: a verdict re-renders the rows it changed).
          onClick={(event) => {
            const option = (event.target as HTMLElement).closest<HTMLElement>('[data-index]');
            if (option) onPick(Number(option.dataset.index));
          }}
          aria-activedescendant={cases[index] ? `run-case-${cases[index]._id}` : undefined}
          style={{ height: rows.getTotalSize(), position: 'relative' }}
        >
          {rows.getVirtualItems().map((row) => {
            const runCase = cases[row.index];
            return runCase ? (
              <CaseOption
                key={runCase._id}
                runCase={runCase}
                index={row.index}
                top={row.start}
                selected={row.index === index}
              />
            ) : null;
          })}
        </div>
      </ScrollArea>
    </Card>
  );
}

/** A row of the list; its click is the list's. */
const CaseOption = memo(function CaseOption({
  runCase,
  index,
  top,
  selected,
}: {
  runCase: ManualRunCase;
  index: number;
  top: number;
  selected: boolean;
}) {
  return (
    <UnstyledButton
      id={`run-case-${runCase._id}`}
      role="option"
      aria-selected={selected}
      data-index={index}
      px="sm"
      style={{
        position: 'absolute',
        top: 0,
        left: 0,
        width: '100%',
        height: ROW_HEIGHT,
        transform: `translateY(${top}px)`,
        background: selected ? 'var(--mantine-primary-color-light)' : undefined,
        borderBottom: '1px solid var(--mantine-color-default-border)',
      }}
    >
      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <Text size="xs" className="mono" c="dimmed">
            {runCase.caseRef.caseId}
          </Text>
          <Text size="sm" lineClamp={1}>
            {runCase.title}
          </Text>
        </Group>
        <StatusBadge status={runCase.result} size="xs" />
      </Group>
    </UnstyledButton>
  );
});

type StepResult = { status: RunCaseResult; comment: string };

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

const CurrentCase = memo(function CurrentCase({
  projectId,
  runId,
  runCase,
  canWrite,
  onVerdict,
  pending,
}: {
  projectId: string;
  runId: string;
  runCase: ManualRunCase;
  canWrite: boolean;
  onVerdict: (result: Verdict) => void;
  pending: boolean;
}) {
  const testCase = useQuery(manualCaseQuery(projectId, runCase.caseRef._id));
  const session = useQuery(sessionQuery());
  const steps =
    testCase.data?.stepFormat === 'Gherkin'
      ? testCase.data.steps.gherkin.map((s) => ({ text: s.text, expected: '', data: '' }))
      : (testCase.data?.steps.classic ?? []).map((s) => ({
          text: s.action,
          expected: s.expectedResult,
          data: s.data,
        }));
  const [stepResults, setStepResults] = useState<Record<number, StepResult>>(() =>
    Object.fromEntries(runCase.stepResults.map((s) => [s.order, { status: s.status, comment: s.comment }])),
  );
  const [comment, setComment] = useState(runCase.comment ?? '');
  const [issue, setIssue] = useState('');
  const setStep = (order: number, change: Partial<StepResult>) =>
    setStepResults((previous) => ({
      ...previous,
      [order]: {
        status: previous[order]?.status ?? 'untested',
        comment: previous[order]?.comment ?? '',
        ...change,
      },
    }));
  const update = useUpdateRunCase(projectId, runId, runCase._id);
  const saveDetails = () => {
    const key = issue.trim();
    update.mutate({
      comment,
      stepResults: Object.entries(stepResults)
        .filter(([, s]) => s.status !== 'untested' || s.comment.trim() !== '')
        .map(([order, s]) => ({ order: Number(order), status: s.status, comment: s.comment })),
      ...(key
        ? { linkedIssues: [...runCase.linkedIssues.map((i) => ({ ...i }) as LinkedIssue), { key }] }
        : {}),
    });
    setIssue('');
  };
  const me = session.data?.user?.id;
  const error = update.isError ? describeError(update.error) : null;

  return (
    <Stack>
      <Card withBorder>
        <Stack gap="xs">
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
          {canWrite ? (
            <Group gap="xs" role="group" aria-label="Verdict">
              {VERDICTS.map((v) => (
                <Tooltip key={v.result} label={`${v.label} (${v.key})`}>
                  <Button
                    size="xs"
                    variant={runCase.result === v.result ? 'light' : 'default'}
                    color={toneOf(v.result)}
                    aria-pressed={runCase.result === v.result}
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
          ) : null}
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
          {testCase.data?.preconditions ? (
            <Text size="sm">
              <b>Preconditions:</b> {testCase.data.preconditions}
            </Text>
          ) : null}
        </Stack>
      </Card>
      <RunEvidence projectId={projectId} runId={runId} runCase={runCase} canWrite={canWrite} />
      <Card withBorder>
        <Stack gap="xs">
          <Title order={3} size="h4">
            Steps
          </Title>
          {testCase.isPending ? (
            <LoadingState label="Loading the steps…" rows={2} />
          ) : testCase.isError ? (
            <ErrorState error={testCase.error} />
          ) : steps.length === 0 ? (
            <Text size="sm" c="dimmed">
              This case has no step.
            </Text>
          ) : (
            <Table aria-label="Steps and their results" verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={28}>#</Table.Th>
                  <Table.Th>Step</Table.Th>
                  <Table.Th w={130}>Result</Table.Th>
                  <Table.Th>Comment</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {steps.map((s, i) => {
                  const order = i + 1;
                  return (
                    <Table.Tr key={order}>
                      <Table.Td>{order}</Table.Td>
                      <Table.Td>
                        <Text size="sm">{s.text}</Text>
                        {s.data ? (
                          <Text size="xs" className="mono">
                            {s.data}
                          </Text>
                        ) : null}
                        {s.expected ? (
                          <Text size="xs" c="dimmed">
                            Expected: {s.expected}
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td>
                        <Select
                          aria-label={`Step ${order} result`}
                          size="xs"
                          data={['untested', ...VERDICTS.map((v) => v.result)]}
                          value={stepResults[order]?.status ?? 'untested'}
                          onChange={(value) => value && setStep(order, { status: value as RunCaseResult })}
                          allowDeselect={false}
                          readOnly={!canWrite}
                        />
                      </Table.Td>
                      <Table.Td>
                        <TextInput
                          aria-label={`Step ${order} comment`}
                          size="xs"
                          value={stepResults[order]?.comment ?? ''}
                          readOnly={!canWrite}
                          onChange={(event) => setStep(order, { comment: event.currentTarget.value })}
                        />
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          )}
          <Textarea
            label="Comment on the result"
            autosize
            minRows={2}
            value={comment}
            readOnly={!canWrite}
            onChange={(event) => setComment(event.currentTarget.value)}
          />
          <Group gap={4}>
            <Text size="sm">Linked issues:</Text>
            {runCase.linkedIssues.length === 0 ? (
              <Text size="sm" c="dimmed">
                none
              </Text>
            ) : (
              runCase.linkedIssues.map((i, n) => (
                <Badge key={n} variant="outline" color="gray">
                  {String(i.key)}
                </Badge>
              ))
            )}
          </Group>
          {canWrite ? (
            <Group align="flex-end" gap="xs">
              <TextInput
                label="Link an issue"
                placeholder="PAY-123"
                size="xs"
                value={issue}
                maxLength={200}
                onChange={(event) => setIssue(event.currentTarget.value)}
              />
              <Button size="xs" variant="default" onClick={saveDetails} loading={update.isPending}>
                Save step results, comment and issue
              </Button>
            </Group>
          ) : null}
          {error ? (
            <Alert color="red" variant="light" title={error.title} role="alert">
              {error.message}
            </Alert>
          ) : null}
        </Stack>
      </Card>
      <Card withBorder>
        <Stack gap={4}>
          <Title order={3} size="h4">
            Verdict history
          </Title>
          {runCase.history.length === 0 ? (
            <Text size="sm" c="dimmed">
              No verdict yet.
            </Text>
          ) : (
            [...runCase.history].reverse().map((entry, n) => (
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
    </Stack>
  );
});

/**
 * What an entry without a verdict changed: evidence attached or removed, the assignee, or the step
 * results, comment and issues.
 */
function entryKind(entry: Pick<ManualRunCase['history'][number], 'mode' | 'assignee' | 'evidence'>): string {
  if (entry.evidence) return `evidence ${entry.evidence.action}`;
  if (entry.assignee !== undefined) return 'assignee';
  return entry.mode === 'detailed' ? 'details' : 'update';
}
