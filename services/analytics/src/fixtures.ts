/**
 * FOR TESTS AND BENCHES ONLY: test-results and identity events as the bus delivers them, built without
 * the services that record them.
 */
import { randomUUID } from 'node:crypto';
import type { ResultItem } from '@verdict/contracts';
import type { EventStore, StoredEvent } from '@verdict/platform';
import type { SpecEvent } from '@verdict/platform/testing/projections';

let globalPosition = 0;

export function envelope(
  streamId: string,
  streamPosition: number,
  type: string,
  data: unknown,
  projectId: string | null,
  occurredAt = '2026-03-01T00:00:00.000Z',
): StoredEvent {
  globalPosition += 1;
  return {
    eventId: randomUUID(),
    type,
    version: 1,
    streamId,
    streamPosition,
    globalPosition,
    occurredAt,
    correlationId: null,
    causationId: null,
    projectId,
    data,
  };
}

export interface FixtureRun {
  projectId: string;
  runId: string;
  counter: number;
  branch?: string | null;
  environment?: string | null;
  commit?: string | null;
  startedAt: string;
  finishedAt?: string;
  status?: 'passed' | 'failed' | null;
  results: ResultItem[];
}

/** The events of one run, per stream: lifecycle (created, finished) and results. */
export function runEvents(run: FixtureRun): { lifecycle: StoredEvent[]; results: StoredEvent[] } {
  const lifecycle = [
    envelope(
      `run-${run.runId}`,
      1,
      'run.created',
      {
        runId: run.runId,
        projectId: run.projectId,
        counter: run.counter,
        ciRunId: null,
        title: null,
        branch: run.branch ?? null,
        environment: run.environment ?? null,
        commit: run.commit ? { sha: run.commit } : null,
        ci: null,
        framework: null,
        shardTotal: null,
        startedAt: run.startedAt,
        tags: [],
      },
      run.projectId,
      run.startedAt,
    ),
  ];
  if (run.finishedAt) {
    lifecycle.push(
      envelope(
        `run-${run.runId}`,
        2,
        'run.finished',
        { runId: run.runId, finishedAt: run.finishedAt, status: run.status ?? null },
        run.projectId,
        run.finishedAt,
      ),
    );
  }
  const results = run.results.map((item, index) =>
    envelope(
      `run-${run.runId}-results`,
      index + 1,
      'test.result-recorded',
      { runId: run.runId, item },
      run.projectId,
      item.startedAt,
    ),
  );
  return { lifecycle, results };
}

export function result(
  file: string,
  titlePath: string[],
  status: ResultItem['status'],
  durationMs: number,
  startedAt: string,
  extra: Partial<ResultItem> = {},
): ResultItem {
  return { file, titlePath, project: 'chromium', attempt: 0, status, durationMs, startedAt, ...extra };
}

export function organizationEvents(options: {
  organizationId: string;
  name: string;
  plan: {
    name: string;
    testCaseLimit: number;
    projectLimit: number;
    periodStart: string | null;
    periodEnd: string | null;
  };
  projects: { id: string; name: string; allocation: number | null }[];
}): StoredEvent[] {
  const stream = `organization-${options.organizationId}`;
  return [
    envelope(
      stream,
      1,
      'organization.created',
      {
        organizationId: options.organizationId,
        name: options.name,
        plan: options.plan,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      null,
    ),
    ...options.projects.map((project, index) =>
      envelope(
        stream,
        index + 2,
        'project.created',
        {
          projectId: project.id,
          organizationId: options.organizationId,
          name: project.name,
          allocation: project.allocation,
          createdAt: `2026-01-0${Math.min(9, index + 2)}T00:00:00.000Z`,
        },
        project.id,
      ),
    ),
  ];
}

/** Appends fixture events to an event store at their own stream positions, as their services recorded them. */
export async function appendAll(store: EventStore, events: StoredEvent[]): Promise<void> {
  for (const event of events) {
    await store.append(
      event.streamId,
      [{ type: event.type, version: event.version, data: event.data, eventId: event.eventId }],
      {
        expectedVersion: event.streamPosition - 1 === 0 ? 'no_stream' : event.streamPosition - 1,
        projectId: event.projectId,
      },
    );
  }
}

/** A run's events as a projection spec states them: created, its results, then finished. */
export function runSpec(run: FixtureRun): SpecEvent[] {
  const { lifecycle, results } = runEvents(run);
  return [lifecycle[0], ...results, ...lifecycle.slice(1)].flatMap((event) =>
    event
      ? [
          {
            type: event.type,
            data: event.data,
            streamId: event.streamId,
            projectId: event.projectId,
            occurredAt: event.occurredAt,
          },
        ]
      : [],
  );
}
