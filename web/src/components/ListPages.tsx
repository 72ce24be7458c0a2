import { Group, Pagination, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A list's pages, a button each; `onPage` gets undefined for the first, which the URL leaves out. */
export function ListPages({
  total,
  pageSize,
  page,
  onPage,
}: {
  total: number;
  pageSize: number;
  page: number | undefined;
  onPage: (page: number | undefined) => void;
}) {
  return (
    <Pagination
      total={Math.max(1, Math.ceil(total / pageSize))}
      value={page ?? 1}
      onChange={(next) => onPage(next === 1 ? undefined : next)}
      size="sm"
      getControlProps={(control) => ({ 'aria-label': `${control} page` })}
    />
  );
}

/** Under a list: what it counts (`summary`), and its pages. */
export function ListFooter({ summary, ...pages }: { summary: ReactNode } & Parameters<typeof ListPages>[0]) {
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed">
        {summary}
      </Text>
      <ListPages {...pages} />
    </Group>
  );
}
