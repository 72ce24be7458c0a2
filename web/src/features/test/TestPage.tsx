/**
 * One test in one run: its error (message, stack, snippet), the steps around the failure and the whole
 * step tree, its output, its attempts side by side, its artifacts (screenshots inline, videos playable,
 * traces in the self-hosted trace viewer, other files to download), the retry command and the debug
 * bundle as Markdown to copy, and its history across runs. The page of `links.uiUrl`.
 */
import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Card,
  Code,
  Collapse,
  Group,
  Image,
  Paper,
  ScrollArea,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Tabs,
  Text,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconChevronDown,
  IconChevronRight,
  IconDownload,
  IconExternalLink,
  IconRoute,
} from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { Suspense, useState } from 'react';
import { AnchorLink } from '../../components/AnchorLink';
import { verdict } from '../../api/client';
import { runQuery, type TestBundle } from '../../api/queries';
import { testBundleQuery, testHistoryQuery } from './api';
import { StatusBadge } from '../../components/badges';
import { CopyFetched, CopyText } from '../../components/CopyButton';
import { formatAgo, formatDuration, formatTime } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';
import { DurationChart } from '../../charts';
import { OUTCOME_COLORS } from '../../theme';
import { ToneText } from '../../components/Tone';
import classes from './TestPage.module.css';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId/tests/$caseId');

interface Step {
  title: string;
  category?: string;
  durationMs: number;
  error?: { message: string };
  location?: { file: string; line: number; column?: number };
  steps?: Step[];
}

type WindowStep = TestBundle['failureWindow']['before'][number];

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

function Section({
  title,
  children,
  right,
}: {
  title: string;
  children: React.ReactNode;
  right?: React.ReactNode;
}) {
  return (
    <Card withBorder padding="md" component="section" aria-label={title}>
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {right}
      </Group>
      {children}
    </Card>
  );
}

function ErrorSection({ bundle }: { bundle: TestBundle }) {
  const [showStack, { toggle }] = useDisclosure(true);
  const error = bundle.error;
  if (!error) {
    return (
      <Section title="Error">
        <Text size="sm" c="dimmed">
          This attempt did not fail.
        </Text>
      </Section>
    );
  }
  return (
    <Section
      title="Error"
      right={
        error.location ? (
          <Text size="xs" c="dimmed" className="mono">
            {error.location.file}:{error.location.line}
          </Text>
        ) : null
      }
    >
      <Stack gap="sm">
        <Paper p="sm" className={classes.error} data-testid="error-message">
          <pre className="pre">{plain(error.message)}</pre>
        </Paper>
        {error.snippet ? (
          <Paper p="sm" withBorder>
            <pre className="pre">{plain(error.snippet)}</pre>
          </Paper>
        ) : null}
        {error.stack ? (
          <Box>
            <UnstyledButton onClick={toggle} aria-expanded={showStack} className={classes.toggle}>
              <Group gap={4}>
                {showStack ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
                <Text size="sm" fw={600}>
                  Stack
                </Text>
              </Group>
            </UnstyledButton>
            <Collapse expanded={showStack}>
              <ScrollArea.Autosize mah={260} mt={4}>
                <pre className="pre">{plain(error.stack)}</pre>
              </ScrollArea.Autosize>
            </Collapse>
          </Box>
        ) : null}
      </Stack>
    </Section>
  );
}

function WindowRow({ step, failed }: { step: WindowStep; failed?: boolean }) {
  return (
    <Group gap="xs" wrap="nowrap" pl={step.depth * 16} className={failed ? classes.failedStep : classes.step}>
      <ToneText
        size="sm"
        fw={failed ? 700 : 400}
        tone={failed ? 'red' : 'plain'}
        style={{ flex: 1 }}
        lineClamp={2}
      >
        {step.title}
      </ToneText>
      {step.category ? (
        <Text size="xs" c="dimmed" className="mono">
          {step.category}
        </Text>
      ) : null}
      <Text size="xs" c="dimmed" w={64} ta="right">
        {formatDuration(step.durationMs)}
      </Text>
    </Group>
  );
}

function FailureWindowSection({ bundle }: { bundle: TestBundle }) {
  const { before, failed, after } = bundle.failureWindow;
  if (!failed && before.length === 0) return null;
  return (
    <Section title="Failure window">
      <Stack gap={0}>
        {before.map((step, index) => (
          <WindowRow key={`b${index}`} step={step} />
        ))}
        {failed ? <WindowRow step={failed} failed /> : null}
        {failed?.error ? (
          <ToneText size="xs" tone="red" className="mono" pl={failed.depth * 16 + 8} py={4}>
            {failed.error}
          </ToneText>
        ) : null}
        {after.map((step, index) => (
          <WindowRow key={`a${index}`} step={step} />
        ))}
      </Stack>
    </Section>
  );
}

function StepNode({ step, depth }: { step: Step; depth: number }) {
  const [open, setOpen] = useState(Boolean(step.error));
  const children = step.steps ?? [];
  return (
    <Box role="treeitem" aria-expanded={children.length > 0 ? open : undefined} aria-selected={false}>
      <Group gap={4} wrap="nowrap" pl={depth * 16} className={step.error ? classes.failedStep : classes.step}>
        {children.length > 0 ? (
          <UnstyledButton
            onClick={() => setOpen(!open)}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${step.title}`}
            className={classes.toggle}
          >
            {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          </UnstyledButton>
        ) : (
          <Box w={14} />
        )}
        <ToneText
          size="sm"
          tone={step.error ? 'red' : 'plain'}
          fw={step.error ? 600 : 400}
          style={{ flex: 1 }}
          lineClamp={2}
        >
          {step.title}
        </ToneText>
        {step.location ? (
          <Text size="xs" c="dimmed" className="mono" visibleFrom="md">
            {step.location.file.split('/').at(-1)}:{step.location.line}
          </Text>
        ) : null}
        <Text size="xs" c="dimmed" w={64} ta="right">
          {formatDuration(step.durationMs)}
        </Text>
      </Group>
      {open && children.length > 0 ? (
        <Box role="group">
          {children.map((child, index) => (
            <StepNode key={index} step={child} depth={depth + 1} />
          ))}
        </Box>
      ) : null}
    </Box>
  );
}

function StepsSection({ bundle }: { bundle: TestBundle }) {
  const steps = (bundle.steps ?? []) as Step[];
  return (
    <Section title="Steps">
      {steps.length === 0 ? (
        <Text size="sm" c="dimmed">
          The runner reported no steps.
        </Text>
      ) : (
        <Box role="tree" aria-label="Steps">
          {steps.map((step, index) => (
            <StepNode key={index} step={step} depth={0} />
          ))}
        </Box>
      )}
    </Section>
  );
}

function OutputSection({ bundle }: { bundle: TestBundle }) {
  const stdout = bundle.stdout ?? [];
  const stderr = bundle.stderr ?? [];
  if (stdout.length === 0 && stderr.length === 0) return null;
  return (
    <Section title="Output">
      <Tabs defaultValue={stdout.length > 0 ? 'stdout' : 'stderr'}>
        <Tabs.List>
          <Tabs.Tab value="stdout">stdout ({stdout.length})</Tabs.Tab>
          <Tabs.Tab value="stderr">stderr ({stderr.length})</Tabs.Tab>
        </Tabs.List>
        {(['stdout', 'stderr'] as const).map((name) => (
          <Tabs.Panel key={name} value={name} pt="xs">
            <ScrollArea.Autosize mah={300}>
              <pre className="pre">{plain((name === 'stdout' ? stdout : stderr).join(''))}</pre>
            </ScrollArea.Autosize>
          </Tabs.Panel>
        ))}
      </Tabs>
    </Section>
  );
}

function ArtifactsSection({ bundle }: { bundle: TestBundle }) {
  const { screenshots, videos, traces, other } = bundle.artifacts;
  if (screenshots.length + videos.length + traces.length + other.length === 0) return null;
  return (
    <Section title="Artifacts">
      <Stack>
        {screenshots.length + videos.length > 0 ? (
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {screenshots.map((shot) =>
              shot.url ? (
                <Anchor
                  key={shot.artifactId}
                  href={shot.url}
                  target="_blank"
                  rel="noreferrer"
                  aria-label={`Open ${shot.name} full size`}
                >
                  <Image
                    src={shot.url}
                    alt={`Screenshot: ${shot.name}`}
                    radius="sm"
                    className={classes.shot}
                  />
                  <Text size="xs" c="dimmed">
                    {shot.name}
                  </Text>
                </Anchor>
              ) : (
                <Text key={shot.artifactId} size="sm" c="dimmed">
                  {shot.name}: not uploaded
                </Text>
              ),
            )}
            {videos.map((video) =>
              video.url ? (
                <Box key={video.artifactId}>
                  <video
                    src={video.url}
                    controls
                    preload="metadata"
                    className={classes.video}
                    aria-label={`Video: ${video.name}`}
                  />
                  <Text size="xs" c="dimmed">
                    {video.name}
                  </Text>
                </Box>
              ) : null,
            )}
          </SimpleGrid>
        ) : null}
        {traces.length + other.length > 0 ? (
          <Group gap="xs">
            {traces.map((trace) =>
              trace.url ? (
                <Button
                  key={trace.artifactId}
                  component="a"
                  href={bundle.links.traceViewerUrl ?? trace.url}
                  target="_blank"
                  rel="noreferrer"
                  size="xs"
                  variant="light"
                  leftSection={<IconRoute size={14} />}
                >
                  Open trace · {trace.name}
                </Button>
              ) : null,
            )}
            {other.map((file) =>
              file.url ? (
                <Button
                  key={file.artifactId}
                  component="a"
                  href={file.url}
                  size="xs"
                  variant="default"
                  leftSection={<IconDownload size={14} />}
                >
                  {file.name}
                </Button>
              ) : null,
            )}
          </Group>
        ) : null}
      </Stack>
    </Section>
  );
}

function AttemptsSection({ bundle }: { bundle: TestBundle }) {
  const shown = {
    attempt: bundle.meta.attempt,
    status: bundle.test.status,
    durationMs: bundle.test.durationMs,
    error: bundle.error ? { message: plain(bundle.error.message).split('\n')[0] ?? '' } : null,
  };
  const attempts = [...bundle.attemptHistory, shown].sort((a, b) => a.attempt - b.attempt);
  if (attempts.length < 2) return null;
  return (
    <Section title="Attempts">
      <SimpleGrid cols={{ base: 1, sm: Math.min(attempts.length, 4) }} spacing="xs">
        {attempts.map((attempt) => (
          <Paper
            key={attempt.attempt}
            withBorder
            p="xs"
            className={attempt.attempt === shown.attempt ? classes.selected : undefined}
            aria-current={attempt.attempt === shown.attempt ? 'true' : undefined}
          >
            <Group justify="space-between" mb={4}>
              <Text size="sm" fw={600}>
                {attempt.attempt === 0 ? 'First try' : `Retry ${attempt.attempt}`}
              </Text>
              <StatusBadge status={attempt.status} size="xs" />
            </Group>
            <Text size="xs" c="dimmed">
              {formatDuration(attempt.durationMs)}
            </Text>
            <ToneText size="xs" tone={attempt.error ? 'red' : 'plain'} className="mono" lineClamp={3}>
              {attempt.error ? attempt.error.message : 'No error'}
            </ToneText>
          </Paper>
        ))}
      </SimpleGrid>
    </Section>
  );
}

function HistorySection({
  projectId,
  caseId,
  runId,
  platform,
}: {
  projectId: string;
  caseId: string;
  runId: string;
  platform: string | null;
}) {
  const history = useQuery(testHistoryQuery(projectId, caseId));
  if (history.isPending)
    return (
      <Section title="History">
        <Skeleton height={120} />
      </Section>
    );
  if (history.isError)
    return (
      <Section title="History">
        <ErrorState error={history.error} onRetry={() => void history.refetch()} />
      </Section>
    );
  const items = history.data.history?.items ?? [];
  const oldestFirst = [...items].reverse();
  const elsewhere = items.filter((item) => item.outcome === 'failed' && item.runId !== runId);
  const stats = history.data.stats;
  return (
    <Section
      title="History"
      right={
        <Text size="xs" c="dimmed">
          {stats.total} executions · {stats.failed} failed · {stats.flaky} flaky · first seen{' '}
          {formatAgo(history.data.firstSeenAt)}
        </Text>
      }
    >
      <Stack>
        <Box>
          <Text size="sm" fw={600} mb={4}>
            Outcomes, oldest to newest
          </Text>
          <Group gap={3} aria-label="Outcome of each execution" role="list">
            {oldestFirst.map((item) => (
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
                  data-current={
                    item.runId === runId && (item.project ?? null) === platform ? 'true' : undefined
                  }
                  style={{
                    backgroundColor: `var(--mantine-color-${OUTCOME_COLORS[item.outcome] ?? 'gray'}-6)`,
                  }}
                />
              </Tooltip>
            ))}
          </Group>
        </Box>
        {oldestFirst.length > 1 ? (
          <Box>
            <Text size="sm" fw={600} mb={4}>
              Duration
            </Text>
            <Suspense fallback={<Skeleton height={180} />}>
              <DurationChart
                points={oldestFirst.map((item) => ({
                  label: `#${item.counter}${item.project ? ` ${item.project}` : ''}`,
                  durationMs: item.durationMs,
                  outcome: item.outcome,
                }))}
              />
            </Suspense>
          </Box>
        ) : null}
        <Box>
          <Text size="sm" fw={600} mb={4}>
            Where else it failed
          </Text>
          {elsewhere.length === 0 ? (
            <Text size="sm" c="dimmed">
              It failed in no other run among its last {items.length}.
            </Text>
          ) : (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Run</Table.Th>
                  <Table.Th>Branch</Table.Th>
                  <Table.Th>Environment</Table.Th>
                  <Table.Th>Platform</Table.Th>
                  <Table.Th>Error</Table.Th>
                  <Table.Th>When</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {elsewhere.slice(0, 10).map((item) => (
                  <Table.Tr key={`${item.runId}:${item.project ?? ''}`}>
                    <Table.Td>
                      <AnchorLink
                        to="/projects/$projectId/runs/$runId/tests/$caseId"
                        params={{ projectId, runId: item.runId, caseId }}
                        search={item.project ? { project: item.project } : {}}
                        size="sm"
                      >
                        #{item.counter}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td>{item.branch ?? '—'}</Table.Td>
                    <Table.Td>{item.environment ?? '—'}</Table.Td>
                    <Table.Td>{item.project ?? '—'}</Table.Td>
                    <Table.Td maw={360}>
                      <Text size="xs" className="mono" lineClamp={1}>
                        {item.errorMessage ? plain(item.errorMessage).split('\n')[0] : '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" title={formatTime(item.startedAt)}>
                        {formatAgo(item.startedAt)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Box>
      </Stack>
    </Section>
  );
}

export function TestPage() {
  const { projectId, runId, caseId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/runs/$runId/tests/$caseId' });
  const bundle = useQuery(
    testBundleQuery({ projectId, runId, caseId, attempt: search.attempt, platform: search.project }),
  );
  const run = useQuery({ ...runQuery(projectId, runId), enabled: false });

  if (bundle.isPending) return <LoadingState label="Loading the test…" rows={8} />;
  if (bundle.isError) return <ErrorState error={bundle.error} onRetry={() => void bundle.refetch()} />;
  const data = bundle.data;
  const { test, meta, links } = data;
  const attempts = Array.from({ length: meta.attempts }, (_, index) => index);

  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Group gap={6}>
          <AnchorLink to="/projects/$projectId/runs" params={{ projectId }} size="sm">
            Runs
          </AnchorLink>
          <Text size="sm" c="dimmed">
            /
          </Text>
          <AnchorLink to="/projects/$projectId/runs/$runId" params={{ projectId, runId }} size="sm">
            {run.data ? `Run #${run.data.counter}` : (meta.runTitle ?? 'Run')}
          </AnchorLink>
          <Text size="sm" c="dimmed">
            /
          </Text>
          <AnchorLink
            to="/projects/$projectId/runs/$runId/suites/$suiteId"
            params={{ projectId, runId, suiteId: data.spec.suiteId }}
            size="sm"
            className="mono"
          >
            {data.spec.file}
          </AnchorLink>
        </Group>
        <Group gap="sm" align="center">
          <Title order={1} size="h3">
            {test.titlePath.join(' › ')}
          </Title>
          <StatusBadge status={test.outcome} size="md" />
          {test.project ? (
            <Badge variant="outline" color="gray">
              {test.project}
            </Badge>
          ) : null}
          {test.tags.map((tag) => (
            <Badge key={tag} variant="light" color="gray" size="sm">
              {tag}
            </Badge>
          ))}
        </Group>
        <Text size="sm" c="dimmed">
          {test.file}
          {test.line !== null ? `:${test.line}` : ''} · attempt {meta.attempt + 1} of {meta.attempts}:{' '}
          {test.status} in {formatDuration(test.durationMs)}
          {data.environment.branch ? ` · ${data.environment.branch}` : ''}
        </Text>
      </Stack>

      <Group gap="xs">
        {meta.attempts > 1 ? (
          <SegmentedControl
            aria-label="Attempt"
            size="xs"
            value={String(meta.attempt)}
            data={attempts.map((attempt) => ({
              value: String(attempt),
              label: attempt === 0 ? 'First try' : `Retry ${attempt}`,
            }))}
            onChange={(value) =>
              void navigate({
                search: (previous) => ({ ...previous, attempt: Number(value) }),
                replace: true,
              })
            }
          />
        ) : null}
        {links.traceViewerUrl ? (
          <Button
            component="a"
            href={links.traceViewerUrl}
            target="_blank"
            rel="noreferrer"
            size="xs"
            variant="light"
            leftSection={<IconRoute size={14} />}
            rightSection={<IconExternalLink size={12} />}
          >
            Open trace
          </Button>
        ) : null}
        <CopyFetched
          label="Copy debug bundle (Markdown)"
          load={() =>
            verdict.debugBundleMarkdown(
              {
                runId,
                caseId,
                ...(search.attempt === undefined ? {} : { attempt: search.attempt }),
                ...(test.project ? { project: test.project } : {}),
              },
              { project: projectId },
            )
          }
        />
      </Group>

      <Paper withBorder p="sm">
        <Group justify="space-between" wrap="nowrap" gap="sm">
          <Box style={{ minWidth: 0 }}>
            <Text size="xs" c="dimmed" fw={600} tt="uppercase">
              Run it again locally
            </Text>
            <Code block className={classes.command} data-testid="retry-command">
              {links.retryCommand}
            </Code>
          </Box>
          <CopyText value={links.retryCommand} label="Copy command" />
        </Group>
      </Paper>

      {test.annotations.length > 0 ? (
        <Alert variant="light" color="gray" title="Annotations">
          {test.annotations.map((annotation, index) => (
            <Text key={index} size="sm">
              <b>{annotation.type}</b>
              {annotation.description ? `: ${annotation.description}` : ''}
            </Text>
          ))}
        </Alert>
      ) : null}

      <ErrorSection bundle={data} />
      <ArtifactsSection bundle={data} />
      <FailureWindowSection bundle={data} />
      <AttemptsSection bundle={data} />
      <StepsSection bundle={data} />
      <OutputSection bundle={data} />
      <HistorySection projectId={projectId} caseId={caseId} runId={runId} platform={test.project} />
    </Stack>
  );
}
