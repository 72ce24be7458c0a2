import { describe, expect, test, vi } from 'vitest';
import { renderInApp } from '../testing/render';
import { ListFooter, ListPages } from './ListPages';

describe('ListFooter and ListPages', () => {
  test('when a list has 120 items of 50 a page, then the footer says what it counts and offers 3 pages', async () => {
    const { screen } = await renderInApp(
      <ListFooter summary="120 test cases" total={120} pageSize={50} page={undefined} onPage={vi.fn()} />,
    );
    await expect.element(screen.getByText('120 test cases')).toBeVisible();
    await expect.element(screen.getByRole('button', { name: '3', exact: true })).toBeVisible();
    await expect.element(screen.getByRole('button', { name: '4', exact: true })).not.toBeInTheDocument();
  });

  test('when the user picks page 2, then onPage gets 2', async () => {
    const onPage = vi.fn();
    const { screen } = await renderInApp(<ListPages total={120} pageSize={50} page={1} onPage={onPage} />);
    await screen.getByRole('button', { name: '2', exact: true }).click();
    expect(onPage).toHaveBeenCalledWith(2);
  });

  test('when the user goes back to the first page, then onPage gets undefined (the URL leaves it out)', async () => {
    const onPage = vi.fn();
    const { screen } = await renderInApp(<ListPages total={120} pageSize={50} page={3} onPage={onPage} />);
    await screen.getByRole('button', { name: '1', exact: true }).click();
    expect(onPage).toHaveBeenCalledWith(undefined);
  });

  test('when the user steps with the previous and next arrows, then the page next to the current one is asked', async () => {
    const onPage = vi.fn();
    const { screen } = await renderInApp(<ListPages total={120} pageSize={50} page={2} onPage={onPage} />);
    await screen.getByRole('button', { name: 'next page' }).click();
    expect(onPage).toHaveBeenLastCalledWith(3);
    await screen.getByRole('button', { name: 'previous page' }).click();
    expect(onPage).toHaveBeenLastCalledWith(undefined);
  });

  test('when the list is empty, then one page is shown and the current page is marked', async () => {
    const { screen } = await renderInApp(
      <ListPages total={0} pageSize={50} page={undefined} onPage={vi.fn()} />,
    );
    await expect
      .element(screen.getByRole('button', { name: '1', exact: true }))
      .toHaveAttribute('data-active', 'true');
    await expect.element(screen.getByRole('button', { name: '2', exact: true })).not.toBeInTheDocument();
  });
});
