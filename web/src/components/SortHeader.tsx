import { Table, UnstyledButton, Group, Text } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconSelector } from '@tabler/icons-react';

/** A column header that sorts the table by its column; says so to screen readers (aria-sort). */
export function SortHeader({
  label,
  active,
  order,
  onSort,
  align,
}: {
  label: string;
  active: boolean;
  order: 'asc' | 'desc';
  onSort: () => void;
  align?: 'right';
}) {
  const Icon = active ? (order === 'asc' ? IconArrowUp : IconArrowDown) : IconSelector;
  return (
    <Table.Th aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'} ta={align}>
      <UnstyledButton onClick={onSort} style={{ width: '100%' }}>
        <Group gap={4} justify={align === 'right' ? 'flex-end' : 'flex-start'} wrap="nowrap">
          <Text size="sm" fw={700}>
            {label}
          </Text>
          <Icon size={14} aria-hidden />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}
