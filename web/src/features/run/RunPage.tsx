/**
 * A run: its summary, its failures first (grouped by error), its flaky tests, then its spec files as a
 * tree; filtered by status, platform and text (kept in the URL). The list is virtualised, so a run of
 * 20,000 results renders the rows in view only; it is asked again every few seconds while the run runs.
 */
import {
  ActionIcon,
  Anchor,
  Badge,
  Box,
  Button,
  Card,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedCallback, useHotkeys } from '@mantine/hooks';
import {
  IconChevronDown,
  IconChevronRight,
  IconExternalLink,
  IconFileTypePdf,
  IconSearch,
} from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useDeferredValue, useMemo, useRef, useState, type ReactNode } from 'react';
import { AnchorLink } from '../../components/AnchorLink';
import { verdict } from '../../api/client';
import { LIVE_INTERVAL_MS, runQuery, type RunDetail } from '../../api/queries';
import { useReportDownload } from '../../api/reports';
import { useCanWrite } from '../../api/role';
import { RunStatus, StatusBadge } from '../../components/badges';
import { CopyFetched } from '../../components/CopyButton';
import { formatAgo, formatDuration, formatNumber, formatTime, shortSha } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';
import { ToneText, toneOf } from '../../components/Tone';
import { RUN_FILTERS } from './search';
import { platformsOf, runRows, type Row } from '../../components/runRows';
import classes from './RunPage.module.css';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId');

function Figure({ label, value, tone }: { label: string; value: ReactNode; tone?: string | undefined }) {
  return (
    <Paper withBorder p="xs" radius="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      {tone ? (
        <ToneText fw={700} size="lg" tone={tone} lineClamp={1}>
          {value}
        </ToneText>
      ) : (
        <Text fw={700} size="lg" lineClamp={1} title={typeof value === 'string' ? value : undefined}>
          {value}
        </Text>
      )}
    </Paper>
  );
}

function RunSummary({ run }: { run: RunDetail }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 5, lg: 9 }} spacing="xs">
      <Figure label="Passed" value={formatNumber(run.stats.passed)} tone={toneOf('passed')} />
      <Figure
        label="Failed"
        value={formatNumber(run.stats.failed)}
        tone={run.stats.failed ? toneOf('failed') : undefined}
      />
      <Figure
        label="Flaky"
        value={formatNumber(run.stats.flaky)}
        tone={run.stats.flaky ? toneOf('flaky') : undefined}
      />
      <Figure label="Skipped" value={formatNumber(run.stats.skipped)} />
      <Figure
        label="Duration"
        value={run.status === 'running' ? 'running' : formatDuration(run.durationMs)}
      />
      <Figure label="Branch" value={run.branch ?? '—'} />
      <Figure
        label="Commit"
        value={
          <span className="mono" title={run.commit?.message ?? undefined}>
            {shortSha(run.commit?.sha)}
          </span>
        }
      />
      <Figure
        label="CI"
        value={
          run.ci?.url ? (
            <Anchor href={run.ci.url} target="_blank" rel="noreferrer" size="sm" fw={600}>
              {run.ci.buildId ?? run.ci.provider ?? 'Build'} <IconExternalLink size={12} aria-hidden />
            </Anchor>
          ) : (
            (run.ci?.buildId ?? '—')
          )
        }
      />
      <Figure
        label="Shards"
        value={
          run.shards
            ? run.status === 'running'
              ? `${run.shards.finished.length} of ${run.shards.total} done`
              : String(run.shards.total)
            : '—'
        }
      />
    </SimpleGrid>
  );
}

function PdfButton({ projectId, runId, counter }: { projectId: string; runId: string; counter: number }) {
  const download = useReportDownload(projectId, `verdict-run-${counter}.pdf`);
  return (
    <Tooltip
      label={
        download.isError
          ? (download.error as Error).message
          : 'Counts, trend, failing tests first, slowest tests'
      }
    >
      <Button
        size="xs"
        variant="default"
        color={download.isError ? 'red' : undefined}
        leftSection={<IconFileTypePdf size={14} />}
        loading={download.isPending}
        onClick={() => download.mutate({ runId })}
      >
        PDF report
      </Button>
    </Tooltip>
  );
}

function TestRow({
  row,
  projectId,
  runId,
}: {
  row: Extract<Row, { kind: 'test' }>;
  projectId: string;
  runId: string;
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

export function RunPage() {
  const { projectId, runId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/runs/$runId' });
  const run = useQuery(runQuery(projectId, runId));
  const canWrite = useCanWrite(projectId);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const text = useDeferredValue(search.q);
  const searchInput = useRef<HTMLInputElement>(null);
  useHotkeys([['/', () => searchInput.current?.focus()]]);
  const setText = useDebouncedCallback(
    (value: string) =>
      void navigate({ search: (previous) => ({ ...previous, q: value || undefined }), replace: true }),
    250,
  );

  const specs = run.data?.specs;
  const platforms = useMemo(() => (specs ? platformsOf(specs) : []), [specs]);
  const rows = useMemo(
    () =>
      specs
        ? runRows(specs, { status: search.status, platform: search.platform, text }, expanded, collapsed)
        : [],
    [specs, search.status, search.platform, text, expanded, collapsed],
  );
  const listRef = useRef<HTMLDivElement>(null);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (index) => (rows[index]?.kind === 'test' && rows[index].depth === 1 ? 46 : 36),
    overscan: 12,
    scrollMargin: listRef.current?.offsetTop ?? 0,
    getItemKey: (index) => rows[index]?.key ?? index,
  });

  if (run.isPending) return <LoadingState label="Loading the run…" rows={10} />;
  if (run.isError) return <ErrorState error={run.error} onRetry={() => void run.refetch()} />;
  const data = run.data;
  const toggle = (set: ReadonlySet<string>, key: string) => {
    const next = new Set(set);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    return next;
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Group gap="xs">
            <AnchorLink to="/projects/$projectId/runs" params={{ projectId }} size="sm">
              Runs
            </AnchorLink>
            <Text size="sm" c="dimmed">
              /
            </Text>
          </Group>
          <Group gap="sm">
            <Title order={1} size="h2">
              Run #{data.counter}
              {data.title ? ` · ${data.title}` : ''}
            </Title>
            <RunStatus status={data.status} outcome={data.outcome} />
            {data.status === 'running' ? (
              <Tooltip label={`Refreshed every ${LIVE_INTERVAL_MS / 1000} s while the run is running`}>
                <Badge variant="dot">Live</Badge>
              </Tooltip>
            ) : null}
          </Group>
          <Text size="sm" c="dimmed">
            Started <span title={formatTime(data.startedAt)}>{formatAgo(data.startedAt)}</span>
            {data.environment ? ` · ${data.environment}` : ''}
            {data.framework
              ? ` · ${data.framework.name}${data.framework.version ? ` ${data.framework.version}` : ''}`
              : ''}
            {' · '}
            {formatNumber(data.stats.total)} tests
          </Text>
        </Stack>
        <Group gap="xs">
          <CopyFetched
            label="Copy failures as Markdown"
            load={() => verdict.debugBundleMarkdown({ runId, limit: 50 }, { project: projectId })}
          />
          {canWrite ? <PdfButton projectId={projectId} runId={runId} counter={data.counter} /> : null}
        </Group>
      </Group>
      <RunSummary run={data} />
      <Card withBorder padding="sm">
        <Group gap="sm" align="flex-end" role="search">
          <SegmentedControl
            aria-label="Outcome"
            size="xs"
            value={search.status ?? 'all'}
            data={[
              { value: 'all', label: 'All' },
              ...RUN_FILTERS.map((value) => ({ value, label: value[0]!.toUpperCase() + value.slice(1) })),
            ]}
            onChange={(value) =>
              void navigate({
                search: (previous) => ({
                  ...previous,
                  status: value === 'all' ? undefined : (value as (typeof RUN_FILTERS)[number]),
                }),
                replace: true,
              })
            }
          />
          {platforms.length > 1 ? (
            <Select
              aria-label="Platform"
              placeholder="Every platform"
              size="xs"
              data={platforms}
              value={search.platform ?? null}
              clearable
              onChange={(value) =>
                void navigate({
                  search: (previous) => ({ ...previous, platform: value ?? undefined }),
                  replace: true,
                })
              }
              w={180}
            />
          ) : null}
          <TextInput
            ref={searchInput}
            aria-label="Filter by text"
            placeholder="Filter by title, file or error (press /)"
            size="xs"
            leftSection={<IconSearch size={14} />}
            defaultValue={search.q ?? ''}
            onChange={(event) => setText(event.currentTarget.value)}
            style={{ flex: 1 }}
            miw={220}
          />
        </Group>
      </Card>
      {rows.length === 0 ? (
        <Text c="dimmed" ta="center" py="xl">
          {data.stats.total === 0
            ? data.status === 'running'
              ? 'No results yet: they appear here as the run sends them.'
              : 'This run has no results.'
            : 'No test matches these filters.'}
        </Text>
      ) : null}
      <div
        ref={listRef}
        data-ready={rows.some((row) => row.kind === 'group') ? 'failures' : 'list'}
        aria-label="Tests of the run"
        role="list"
        style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
      >
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          return (
            <div
              key={item.key}
              role="listitem"
              data-index={item.index}
              ref={virtualizer.measureElement}
              className={classes.virtual}
              style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
            >
              {row.kind === 'section' ? (
                <Group gap="xs" pt="md" pb={6} className={classes.section}>
                  <Title order={2} size="h4">
                    {row.title}
                  </Title>
                  <Badge variant="light" color="gray" size="sm">
                    {formatNumber(row.count)}
                  </Badge>
                </Group>
              ) : row.kind === 'group' ? (
                <UnstyledButton
                  className={classes.group}
                  aria-expanded={!collapsed.has(row.key)}
                  onClick={() => setCollapsed((set) => toggle(set, row.key))}
                >
                  <Group gap="xs" wrap="nowrap">
                    {collapsed.has(row.key) ? <IconChevronRight size={14} /> : <IconChevronDown size={14} />}
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
              ) : row.kind === 'file' ? (
                <Group gap="xs" wrap="nowrap" className={classes.row}>
                  <ActionIcon
                    variant="subtle"
                    size="sm"
                    aria-label={`${row.expanded ? 'Collapse' : 'Expand'} ${row.spec.file}`}
                    aria-expanded={row.expanded}
                    onClick={() => setExpanded((set) => toggle(set, row.spec.file))}
                  >
                    {row.expanded ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
                  </ActionIcon>
                  <AnchorLink
                    to="/projects/$projectId/runs/$runId/suites/$suiteId"
                    params={{ projectId, runId, suiteId: row.spec.file }}
                    size="sm"
                    className="mono"
                    lineClamp={1}
                    style={{ flex: 1 }}
                  >
                    {row.spec.file}
                  </AnchorLink>
                  <Text size="xs" c="dimmed">
                    {row.shown === row.spec.total
                      ? `${row.spec.total} tests`
                      : `${row.shown} of ${row.spec.total} tests`}
                  </Text>
                  {row.spec.failed ? (
                    <StatusBadge status="failed" size="xs" />
                  ) : row.spec.flaky ? (
                    <StatusBadge status="flaky" size="xs" />
                  ) : null}
                  <Text size="xs" c="dimmed" w={70} ta="right">
                    {formatDuration(row.spec.durationMs)}
                  </Text>
                </Group>
              ) : (
                <TestRow row={row} projectId={projectId} runId={runId} />
              )}
            </div>
          );
        })}
      </div>
    </Stack>
  );
}
