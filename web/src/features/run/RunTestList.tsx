/** The run's rows, virtualised against the window: only the rows in view are in the DOM. */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { failureKey } from '../../api/queries';
import type { Row } from '../../components/runRows';
import { FileRow, GroupRow, SectionRow, TestRow } from './RunRows';
import classes from './RunPage.module.css';
import type { RunRowsState } from './useRunRows';

interface Props {
  state: RunRowsState;
  projectId: string;
  runId: string;
}

function RunRow({ row, state, projectId, runId }: Props & { row: Row }) {
  if (row.kind === 'section') return <SectionRow row={row} />;
  if (row.kind === 'group')
    return (
      <GroupRow
        row={row}
        collapsed={state.collapsed.has(row.key)}
        onToggle={() => state.toggleGroup(row.key)}
        projectId={projectId}
        signatures={state.signatures.get(row.key)}
      />
    );
  if (row.kind === 'file')
    return (
      <FileRow
        row={row}
        projectId={projectId}
        runId={runId}
        onToggle={() => state.toggleFile(row.spec.file)}
      />
    );
  const failure =
    row.test.outcome === 'failed'
      ? state.verdicts.get(failureKey(row.test.testCaseId, row.test.project))
      : undefined;
  return <TestRow row={row} projectId={projectId} runId={runId} failure={failure} />;
}

export function RunTestList({ state, projectId, runId }: Props) {
  const { rows } = state;
  const listRef = useRef<HTMLDivElement>(null);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (index) => (rows[index]?.kind === 'test' && rows[index].depth === 1 ? 46 : 36),
    overscan: 12,
    scrollMargin: listRef.current?.offsetTop ?? 0,
    getItemKey: (index) => rows[index]?.key ?? index,
  });
  return (
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
            <RunRow row={row} state={state} projectId={projectId} runId={runId} />
          </div>
        );
      })}
    </div>
  );
}
