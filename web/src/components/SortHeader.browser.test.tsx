import { Table } from '@mantine/core';
import { describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { renderInApp } from '../testing/render';
import { SortHeader } from './SortHeader';

function header(props: Omit<Parameters<typeof SortHeader>[0], 'label' | 'onSort'>) {
  const onSort = vi.fn();
  const ui = (
    <Table>
      <Table.Thead>
        <Table.Tr>
          <SortHeader label="Fail rate" onSort={onSort} {...props} />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        <Table.Tr>
          <Table.Td>12%</Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
  return { ui, onSort };
}

/** The header cell whose aria-sort screen readers announce (Vitest's role engine reads a th as a cell). */
function headerCell(screen: Awaited<ReturnType<typeof renderInApp>>['screen']): HTMLElement {
  const cell = screen.getByRole('button', { name: 'Fail rate' }).element().closest('th');
  if (!cell) throw new Error('the header has no th');
  return cell;
}

describe('SortHeader', () => {
  test('when the table is sorted by another column, then screen readers hear this one is not sorted', async () => {
    const { ui } = header({ active: false, order: 'desc' });
    const { screen } = await renderInApp(ui);
    await expect.element(headerCell(screen)).toHaveAttribute('aria-sort', 'none');
  });

  test('when the table is sorted by this column, then its order is said (ascending, descending)', async () => {
    const descending = header({ active: true, order: 'desc' });
    const { screen } = await renderInApp(descending.ui);
    await expect.element(headerCell(screen)).toHaveAttribute('aria-sort', 'descending');
    await screen.rerender(header({ active: true, order: 'asc' }).ui);
    await expect.element(headerCell(screen)).toHaveAttribute('aria-sort', 'ascending');
  });

  test('when the user clicks the header or presses Enter on it, then the table is asked to sort by it', async () => {
    const { ui, onSort } = header({ active: false, order: 'desc' });
    const { screen } = await renderInApp(ui);
    const button = screen.getByRole('button', { name: 'Fail rate' });
    await button.click();
    expect(onSort).toHaveBeenCalledTimes(1);
    await userEvent.keyboard('{Enter}');
    expect(onSort).toHaveBeenCalledTimes(2);
  });
});
