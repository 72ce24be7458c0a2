/**
 * Manual runs and releases (spec §4.4, §4.5): releases with their due dates, runs and combined progress;
 * every manual run with its progress; exploratory sessions (charter, notes, findings). A writer creates a
 * run from suites, from chosen cases or from a filter of the library, creates releases and sessions, and
 * moves a session along (start, complete) with its notes and findings.
 */
import {
  Alert,
  Badge,
  Box,
  Button,
  Card,
  Group,
  MultiSelect,
  NumberInput,
  Progress,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState, type ReactNode } from 'react';
import { describeError, type WriteBody } from '../../api/client';
import {
  type ExploratorySession,
  type ManualCaseQuery,
  type ManualRunSummary,
  type Release,
} from '../../api/queries';
import { manualCasesQuery, manualRunsQuery, manualSuitesQuery, releasesQuery } from '../../api/manual';
import { useCanWrite } from '../../api/role';
import { AnchorLink } from '../../components/AnchorLink';
import { AssigneeSelect } from '../../components/AssigneeSelect';
import { DialogForm } from '../../components/DialogForm';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatDate, formatTime } from '../../components/format';
import { toneOf } from '../../components/Tone';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { flattenTree, suiteTree } from '../../components/suiteTree';
import { CASE_FIELDS, FIELD_LABELS, optionsOf, type CaseField } from '../../components/manualValues';
import { sessionsQuery, useCreateSession, useUpdateSession } from '../sessions/api';
import { useCreateRelease, useCreateRun, type NewRun, type RunCases } from './api';

type ReleaseBody = WriteBody<'/{projectId}/releases', 'post'>;
type SessionBody = WriteBody<'/{projectId}/sessions', 'post'>;

const route = getRouteApi('/signed-in/projects/$projectId/releases');

type Progress = Release['progress'];
const PARTS = ['passed', 'failed', 'blocked', 'skipped', 'retest'] as const;

export function ProgressBar({ progress, label }: { progress: Progress; label: string }) {
  const total = Math.max(1, progress.total);
  return (
    <Stack gap={2}>
      <Progress.Root size="md" aria-hidden>
        {PARTS.map((part) =>
          progress[part] > 0 ? (
            <Progress.Section key={part} value={(progress[part] / total) * 100} color={toneOf(part)} />
          ) : null,
        )}
      </Progress.Root>
      <Text size="xs" c="dimmed" aria-label={label}>
        {progress.completed}/{progress.total} done · {progress.passed} passed · {progress.failed} failed ·{' '}
        {progress.blocked} blocked · pass rate {progress.passRate}%
      </Text>
    </Stack>
  );
}

export function ReleasesPage() {
  const { projectId } = route.useParams();
  const canWrite = useCanWrite(projectId);
  const runs = useQuery(manualRunsQuery(projectId));
  const releases = useQuery(releasesQuery(projectId));
  const sessions = useQuery(sessionsQuery(projectId));
  const [dialog, setDialog] = useState<'run' | 'release' | 'session' | null>(null);

  return (
    <Stack gap="xl">
      <Group justify="space-between">
        <Title order={1} size="h2">
          Manual runs and releases
        </Title>
        {canWrite ? (
          <Group gap="xs">
            <Button
              variant="default"
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={() => setDialog('run')}
            >
              New run
            </Button>
            <Button
              variant="default"
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={() => setDialog('release')}
            >
              New release
            </Button>
            <Button
              variant="default"
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={() => setDialog('session')}
            >
              New session
            </Button>
          </Group>
        ) : null}
      </Group>
      <Section title="Releases" query={releases} empty="No release yet.">
        {(items) => (
          <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
            {items.map((release) => (
              <ReleaseCard
                key={release._id}
                projectId={projectId}
                release={release}
                runs={(runs.data ?? []).filter((run) => run.release?._id === release._id)}
              />
            ))}
          </SimpleGrid>
        )}
      </Section>
      <Section title="Runs" query={runs} empty="No manual run yet.">
        {(items) => <RunsTable projectId={projectId} runs={items} />}
      </Section>
      <Section title="Exploratory sessions" query={sessions} empty="No exploratory session yet.">
        {(items) => (
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {items.map((session) => (
              <SessionCard key={session._id} projectId={projectId} session={session} canWrite={canWrite} />
            ))}
          </SimpleGrid>
        )}
      </Section>
      {dialog === 'run' ? (
        <NewRunDialog projectId={projectId} releases={releases.data ?? []} onClose={() => setDialog(null)} />
      ) : dialog === 'release' ? (
        <NewReleaseDialog projectId={projectId} onClose={() => setDialog(null)} />
      ) : dialog === 'session' ? (
        <NewSessionDialog
          projectId={projectId}
          releases={releases.data ?? []}
          onClose={() => setDialog(null)}
        />
      ) : null}
    </Stack>
  );
}

function Section<T>({
  title,
  query,
  empty,
  children,
}: {
  title: string;
  query: {
    isPending: boolean;
    isError: boolean;
    error: unknown;
    data: T[] | undefined;
    refetch: () => unknown;
  };
  empty: string;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <Stack gap="sm" component="section" aria-label={title}>
      <Title order={2} size="h3">
        {title}
      </Title>
      {query.isPending ? (
        <LoadingState rows={2} />
      ) : query.isError || !query.data ? (
        <ErrorState error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title={empty} />
      ) : (
        children(query.data)
      )}
    </Stack>
  );
}

function ReleaseCard({
  projectId,
  release,
  runs,
}: {
  projectId: string;
  release: Release;
  runs: ManualRunSummary[];
}) {
  const overdue =
    release.dueDate !== null &&
    release.status !== 'completed' &&
    release.dueDate < new Date().toISOString().slice(0, 10);
  return (
    <Card withBorder component="article" aria-label={`Release ${release.name}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Title order={3} size="h4">
            {release.name}
          </Title>
          <Badge variant="light" color={release.status === 'active' ? 'blue' : 'gray'}>
            {release.status}
          </Badge>
        </Group>
        <Text size="sm" c={overdue ? 'red' : 'dimmed'}>
          <span className="mono">{release.releaseId}</span> · due{' '}
          {release.dueDate ? formatDate(release.dueDate) : 'no date'}
          {overdue ? ' (overdue)' : ''}
        </Text>
        <ProgressBar progress={release.progress} label={`Progress of release ${release.name}`} />
        <Text size="xs" c="dimmed">
          {release.runCount} {release.runCount === 1 ? 'run' : 'runs'}
        </Text>
        {runs.map((run) => (
          <AnchorLink
            key={run._id}
            to="/projects/$projectId/manual-runs/$runId"
            params={{ projectId, runId: run._id }}
            search={{}}
            size="sm"
          >
            {run.name}
          </AnchorLink>
        ))}
      </Stack>
    </Card>
  );
}

function RunsTable({ projectId, runs }: { projectId: string; runs: ManualRunSummary[] }) {
  return (
    <Table.ScrollContainer minWidth={800}>
      <Table striped aria-label="Manual runs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Run</Table.Th>
            <Table.Th>Release</Table.Th>
            <Table.Th>Assignee</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th w={280}>Progress</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((run) => (
            <Table.Tr key={run._id}>
              <Table.Td>
                <AnchorLink
                  to="/projects/$projectId/manual-runs/$runId"
                  params={{ projectId, runId: run._id }}
                  search={{}}
                  size="sm"
                >
                  {run.name}
                </AnchorLink>
                <Text size="xs" c="dimmed" className="mono">
                  {run.runId}
                </Text>
              </Table.Td>
              <Table.Td>{run.release?.name ?? '—'}</Table.Td>
              <Table.Td>{run.assignee ? `${run.assignee.firstName} ${run.assignee.lastName}` : '—'}</Table.Td>
              <Table.Td>{run.status.replace('_', ' ')}</Table.Td>
              <Table.Td>
                <ProgressBar progress={run.progress} label={`Progress of run ${run.name}`} />
              </Table.Td>
              <Table.Td>
                <Text size="xs" title={formatTime(run.createdAt)}>
                  {formatAgo(run.createdAt)}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

const releaseOptions = (releases: Release[]) => releases.map((r) => ({ value: r._id, label: r.name }));

function NewRunDialog({
  projectId,
  releases,
  onClose,
}: {
  projectId: string;
  releases: Release[];
  onClose: () => void;
}) {
  const navigate = useNavigate();
  const suites = useQuery(manualSuitesQuery(projectId));
  const cases = useQuery(manualCasesQuery(projectId, { page: 1, limit: 100 }));
  const [name, setName] = useState('');
  const [from, setFrom] = useState<'suites' | 'cases' | 'filter'>('suites');
  const [suiteIds, setSuiteIds] = useState<string[]>([]);
  const [caseIds, setCaseIds] = useState<string[]>([]);
  const [field, setField] = useState<CaseField>('priority');
  const [value, setValue] = useState<string | null>(null);
  const [tags, setTags] = useState('');
  const [releaseId, setReleaseId] = useState<string | null>(null);
  const [assigneeUserId, setAssigneeUserId] = useState<string | null>(null);
  const create = useCreateRun(projectId, (runId) => {
    onClose();
    void navigate({
      to: '/projects/$projectId/manual-runs/$runId',
      params: { projectId, runId },
      search: {},
    });
  });
  const newRun = (): NewRun => {
    let cases: RunCases;
    if (from === 'suites') cases = { suiteIds };
    else if (from === 'cases') cases = { caseIds };
    else {
      const filter: ManualCaseQuery = {};
      if (value) Object.assign(filter, { [field]: value });
      if (tags.trim()) filter.tags = tags.trim();
      cases = { filter };
    }
    return {
      name,
      cases,
      ...(releaseId ? { releaseId } : {}),
      ...(assigneeUserId ? { assigneeUserId } : {}),
    };
  };
  const chosenNothing =
    (from === 'suites' && suiteIds.length === 0) ||
    (from === 'cases' && caseIds.length === 0) ||
    (from === 'filter' && value === null && tags.trim() === '');
  return (
    <DialogForm
      title="New manual run"
      onClose={onClose}
      onSubmit={() => create.mutate(newRun())}
      pending={create.isPending}
      error={create.error}
      submit="Create run"
      disabled={name.trim() === '' || chosenNothing}
    >
      <TextInput
        label="Name"
        required
        data-autofocus
        value={name}
        maxLength={500}
        onChange={(e) => setName(e.currentTarget.value)}
      />
      <SegmentedControl
        aria-label="Cases from"
        value={from}
        onChange={(next) => setFrom(next as typeof from)}
        data={[
          { value: 'suites', label: 'Suites' },
          { value: 'cases', label: 'Cases' },
          { value: 'filter', label: 'A filter' },
        ]}
      />
      {from === 'suites' ? (
        <MultiSelect
          label="Suites"
          data={flattenTree(suiteTree(suites.data ?? [])).map((node) => ({
            value: node.suite._id,
            label: `${'  '.repeat(node.depth)}${node.suite.name} (${node.suite.caseCount})`,
          }))}
          value={suiteIds}
          onChange={setSuiteIds}
          searchable
        />
      ) : from === 'cases' ? (
        <MultiSelect
          label="Cases"
          data={(cases.data?.data ?? []).map((c) => ({ value: c._id, label: `${c.caseId} ${c.title}` }))}
          value={caseIds}
          onChange={setCaseIds}
          searchable
        />
      ) : (
        <Group grow align="flex-end">
          <Select
            label="Field"
            data={(Object.keys(CASE_FIELDS) as CaseField[]).map((key) => ({
              value: key,
              label: FIELD_LABELS[key],
            }))}
            value={field}
            onChange={(next) => {
              setField((next as CaseField | null) ?? 'priority');
              setValue(null);
            }}
            allowDeselect={false}
          />
          <Select
            label="Is"
            data={optionsOf(CASE_FIELDS[field])}
            value={value}
            onChange={setValue}
            clearable
          />
          <TextInput label="Tags (any of)" value={tags} onChange={(e) => setTags(e.currentTarget.value)} />
        </Group>
      )}
      <Group grow>
        <Select
          label="Release"
          data={releaseOptions(releases)}
          value={releaseId}
          onChange={setReleaseId}
          clearable
        />
        <AssigneeSelect projectId={projectId} value={assigneeUserId} onChange={setAssigneeUserId} />
      </Group>
    </DialogForm>
  );
}

function NewReleaseDialog({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const [name, setName] = useState('');
  const [startDate, setStartDate] = useState('');
  const [dueDate, setDueDate] = useState('');
  const [status, setStatus] = useState<'planned' | 'active' | 'completed'>('planned');
  const create = useCreateRelease(projectId, onClose);
  const release = (): ReleaseBody => ({
    name,
    status,
    ...(startDate ? { startDate } : {}),
    ...(dueDate ? { dueDate } : {}),
  });
  return (
    <DialogForm
      title="New release"
      onClose={onClose}
      onSubmit={() => create.mutate(release())}
      pending={create.isPending}
      error={create.error}
      submit="Create release"
      disabled={name.trim() === ''}
    >
      <TextInput
        label="Name"
        required
        data-autofocus
        value={name}
        maxLength={500}
        onChange={(e) => setName(e.currentTarget.value)}
      />
      <Group grow>
        <TextInput
          label="Start date"
          type="date"
          value={startDate}
          onChange={(e) => setStartDate(e.currentTarget.value)}
        />
        <TextInput
          label="Due date"
          type="date"
          value={dueDate}
          onChange={(e) => setDueDate(e.currentTarget.value)}
        />
        <Select
          label="Status"
          data={[
            { value: 'planned', label: 'Planned' },
            { value: 'active', label: 'Active' },
            { value: 'completed', label: 'Completed' },
          ]}
          value={status}
          onChange={(next) => setStatus((next as typeof status | null) ?? 'planned')}
          allowDeselect={false}
        />
      </Group>
    </DialogForm>
  );
}

function NewSessionDialog({
  projectId,
  releases,
  onClose,
}: {
  projectId: string;
  releases: Release[];
  onClose: () => void;
}) {
  const [charter, setCharter] = useState('');
  const [releaseId, setReleaseId] = useState<string | null>(null);
  const [assigneeUserId, setAssigneeUserId] = useState<string | null>(null);
  const [timeBox, setTimeBox] = useState<number | string>('');
  const create = useCreateSession(projectId, onClose);
  const newSession = (): SessionBody => ({
    charter,
    ...(releaseId ? { releaseId } : {}),
    ...(assigneeUserId ? { assigneeUserId } : {}),
    ...(typeof timeBox === 'number' ? { timeBoxMinutes: timeBox } : {}),
  });
  return (
    <DialogForm
      title="New exploratory session"
      onClose={onClose}
      onSubmit={() => create.mutate(newSession())}
      pending={create.isPending}
      error={create.error}
      submit="Create session"
      disabled={charter.trim() === ''}
    >
      <Textarea
        label="Charter"
        description="What to explore, with what, to discover what"
        required
        data-autofocus
        autosize
        minRows={2}
        maxLength={2000}
        value={charter}
        onChange={(e) => setCharter(e.currentTarget.value)}
      />
      <Select
        label="Release"
        data={releaseOptions(releases)}
        value={releaseId}
        onChange={setReleaseId}
        clearable
      />
      <AssigneeSelect projectId={projectId} value={assigneeUserId} onChange={setAssigneeUserId} />
      <NumberInput
        label="Time box (minutes)"
        description="How long the session is meant to take; empty for none"
        min={1}
        max={10_080}
        allowDecimal={false}
        allowNegative={false}
        value={timeBox}
        onChange={setTimeBox}
      />
    </DialogForm>
  );
}

/** The session's time box after its time spent: ` · time box 45 min` (and how far over, once it is). */
function timeBoxOf(minutes: number | null, box: number | null): string {
  if (box === null) return '';
  const over = minutes !== null && minutes > box ? ` (${minutes - box} min over)` : '';
  return ` · time box ${box} min${over}`;
}

function SessionCard({
  projectId,
  session,
  canWrite,
}: {
  projectId: string;
  session: ExploratorySession;
  canWrite: boolean;
}) {
  const [notes, setNotes] = useState(session.notes);
  const [finding, setFinding] = useState('');
  const update = useUpdateSession(projectId, session._id, () => setFinding(''));
  const minutes =
    session.startedAt !== null
      ? Math.round(
          ((session.completedAt ? Date.parse(session.completedAt) : Date.now()) -
            Date.parse(session.startedAt)) /
            60_000,
        )
      : null;
  const error = update.isError ? describeError(update.error) : null;
  return (
    <Card withBorder component="article" aria-label={`Session: ${session.charter}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Text fw={600}>{session.charter}</Text>
          <Box style={{ flexShrink: 0 }}>
            <StatusBadge status={session.status.replace('_', ' ')} size="xs" />
          </Box>
        </Group>
        <Text size="xs" c="dimmed">
          {session.release ? `${session.release.name} · ` : ''}
          {minutes === null ? 'not started' : `${minutes} min ${session.completedAt ? 'spent' : 'so far'}`}
          {timeBoxOf(minutes, session.timeBoxMinutes)}
          {canWrite
            ? ''
            : ` · ${session.assignee ? `${session.assignee.firstName} ${session.assignee.lastName}` : 'nobody assigned'}`}
        </Text>
        {canWrite ? (
          <AssigneeSelect
            projectId={projectId}
            value={session.assignee?._id ?? null}
            current={session.assignee}
            onChange={(userId) => update.mutate({ assigneeUserId: userId })}
            disabled={update.isPending}
            size="xs"
          />
        ) : null}
        <Textarea
          label="Notes"
          autosize
          minRows={2}
          value={notes}
          readOnly={!canWrite}
          onChange={(e) => setNotes(e.currentTarget.value)}
        />
        <Stack gap={2}>
          <Text size="sm" fw={600}>
            Findings
          </Text>
          {session.findings.length === 0 ? (
            <Text size="sm" c="dimmed">
              None yet.
            </Text>
          ) : (
            session.findings.map((f, i) => (
              <Text key={i} size="sm">
                • {f.title}
                {f.issueKey ? ` (${f.issueKey})` : ''}
              </Text>
            ))
          )}
        </Stack>
        {canWrite ? (
          <>
            <TextInput
              label="New finding"
              size="xs"
              value={finding}
              maxLength={500}
              onChange={(e) => setFinding(e.currentTarget.value)}
            />
            <Group gap="xs">
              <Button
                size="xs"
                variant="default"
                loading={update.isPending}
                onClick={() =>
                  update.mutate({
                    notes,
                    ...(finding.trim()
                      ? {
                          findings: [
                            ...session.findings.map((f) => ({ ...f, issueKey: f.issueKey ?? undefined })),
                            { title: finding.trim() },
                          ],
                        }
                      : {}),
                  })
                }
              >
                Save notes and findings
              </Button>
              {session.status === 'planned' ? (
                <Button size="xs" variant="default" onClick={() => update.mutate({ status: 'in_progress' })}>
                  Start
                </Button>
              ) : session.status === 'in_progress' ? (
                <Button size="xs" variant="default" onClick={() => update.mutate({ status: 'completed' })}>
                  Complete
                </Button>
              ) : null}
            </Group>
          </>
        ) : null}
        {error ? (
          <Alert color="red" variant="light" title={error.title} role="alert">
            {error.message}
          </Alert>
        ) : null}
      </Stack>
    </Card>
  );
}
