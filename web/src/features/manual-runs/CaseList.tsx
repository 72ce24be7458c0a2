/**
 * The run's cases in order, the left column of the run page. Only the rows in view are rendered, so a run of
 * 2,000 cases answers a key at once; each row is memoised, so a verdict re-renders only the rows it changed.
 */
import { Card, Group, ScrollArea, Text, UnstyledButton } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import type { ManualRunCase } from '../../api/queries';
import { StatusBadge } from '../../components/badges';

const ROW_HEIGHT = 44;

/** The run's cases, only the rows in view rendered: a run of 2,000 cases answers a key at once. */
export function CaseList({
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
