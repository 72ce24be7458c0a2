import { useNavigate, useSearch } from '@tanstack/react-router';
import { useCallback } from 'react';
import { describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { pageAt, renderAtUrl } from '../testing/render';
import { FilterBar, type FilterField } from './FilterBar';

interface Filters {
  search?: string;
  status?: string;
  days?: number;
}

const FIELDS: FilterField<keyof Filters>[] = [
  { kind: 'text', key: 'search', label: 'Search', placeholder: 'Title (press /)', width: 240, main: true },
  {
    kind: 'select',
    key: 'status',
    label: 'Status',
    placeholder: 'Any',
    options: ['passed', 'failed', 'flaky'],
    width: 150,
  },
  { kind: 'number', key: 'days', label: 'Days', min: 1, max: 365, fallback: 30, width: 90 },
];

/** A list page's filters as the pages wire them: values from the URL, changes merged into it. */
async function filtersAt(url: string) {
  const changes = vi.fn();
  function ListPage() {
    const search = useSearch({ strict: false }) as Filters;
    const navigate = useNavigate();
    const onChange = useCallback(
      (change: Partial<Filters>) => {
        changes(change);
        void navigate({ to: '.', search: (previous) => ({ ...previous, ...change }) as typeof previous });
      },
      [navigate],
    );
    return <FilterBar fields={FIELDS} values={search} onChange={onChange} />;
  }
  const rendered = await renderAtUrl(pageAt(ListPage), url);
  const search = () => rendered.router.state.location.search as Filters;
  return { ...rendered, changes, search };
}

describe('FilterBar', () => {
  test('when a page opens from a link with filters, then each control shows its value', async () => {
    const { screen } = await filtersAt('/?search=login&status=failed&days=7');
    await expect.element(screen.getByRole('textbox', { name: 'Search' })).toHaveValue('login');
    await expect.element(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('failed');
    await expect.element(screen.getByRole('textbox', { name: 'Days' })).toHaveValue('7');
  });

  test('when the user types a search, then the URL follows once, after typing pauses', async () => {
    const { screen, changes, search } = await filtersAt('/');
    await screen.getByRole('textbox', { name: 'Search' }).click();
    await userEvent.keyboard('checkout');
    expect(changes).not.toHaveBeenCalled();
    await expect.poll(search).toEqual({ search: 'checkout' });
    expect(changes).toHaveBeenCalledTimes(1);
  });

  test('when the user empties the search, then it leaves the URL', async () => {
    const { screen, search } = await filtersAt('/?search=login');
    await screen.getByRole('textbox', { name: 'Search' }).clear();
    await expect.poll(search).toEqual({});
  });

  test('when the user presses /, then the main search has the focus', async () => {
    const { screen } = await filtersAt('/');
    await expect.element(screen.getByRole('search')).toBeVisible();
    await userEvent.keyboard('/');
    await expect.element(screen.getByRole('textbox', { name: 'Search' })).toHaveFocus();
  });

  test('when a filter is picked, then the URL search has it; picked again, it is removed', async () => {
    const { screen, search } = await filtersAt('/?search=login');
    await screen.getByRole('combobox', { name: 'Status' }).click();
    await screen.getByRole('option', { name: 'failed' }).click();
    await expect.poll(search).toEqual({ search: 'login', status: 'failed' });
    await screen.getByRole('combobox', { name: 'Status' }).click();
    await screen.getByRole('option', { name: 'failed' }).click();
    await expect.poll(search).toEqual({ search: 'login' });
  });

  test('when a number in its range is typed, then the URL has it; a number out of range is not sent', async () => {
    const { screen, search, changes } = await filtersAt('/');
    const days = screen.getByRole('textbox', { name: 'Days' });
    await days.fill('7');
    await expect.poll(search).toEqual({ days: 7 });
    changes.mockClear();
    await days.fill('999');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(changes).not.toHaveBeenCalled();
    expect(search()).toEqual({ days: 7 });
  });
});
