import { VerdictApiError } from '@verdict/client';
import { describe, expect, test, vi } from 'vitest';
import { pageAt, renderAtUrl, renderInApp } from '../testing/render';
import { EmptyState, ErrorState, LoadingState, NotFoundPage } from './states';

describe('LoadingState', () => {
  test('while a page loads, then it says what is loading and is marked busy for screen readers', async () => {
    const { screen } = await renderInApp(<LoadingState label="Loading the runs…" />);
    await expect.element(screen.getByText('Loading the runs…')).toBeVisible();
    const region = screen.getByText('Loading the runs…').element().closest<HTMLElement>('[aria-busy]');
    await expect.element(region).toHaveAttribute('aria-busy', 'true');
  });
});

describe('EmptyState', () => {
  test('when a list is empty, then its title and what to do next are shown', async () => {
    const { screen } = await renderInApp(
      <EmptyState title="No runs yet">Send results with the Playwright reporter.</EmptyState>,
    );
    await expect.element(screen.getByRole('heading', { name: 'No runs yet' })).toBeVisible();
    await expect.element(screen.getByText('Send results with the Playwright reporter.')).toBeVisible();
  });
});

describe('ErrorState', () => {
  test('when the API refused, then the reason and its code are shown, and Try again asks again', async () => {
    const onRetry = vi.fn();
    const error = new VerdictApiError({ status: 404, code: 'NOT_FOUND', message: 'Run 42 does not exist' });
    const { screen } = await renderInApp(<ErrorState error={error} onRetry={onRetry} />);
    const alert = screen.getByRole('alert');
    await expect.element(alert).toMatchTextContent('Not found');
    await expect.element(alert).toMatchTextContent('Run 42 does not exist');
    await expect.element(alert).toMatchTextContent('NOT_FOUND');
    await screen.getByRole('button', { name: 'Try again' }).click();
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  test('when the server cannot be reached, then it says so, with no retry button unless one is given', async () => {
    const { screen } = await renderInApp(<ErrorState error={new TypeError('Failed to fetch')} />);
    await expect.element(screen.getByRole('alert')).toMatchTextContent('Verdict cannot be reached');
    await expect.element(screen.getByRole('alert')).toMatchTextContent('Failed to fetch');
    await expect.element(screen.getByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
  });
});

describe('NotFoundPage', () => {
  test('when an address is not a page, then it says so and leads back to the projects', async () => {
    const { screen, router } = await renderAtUrl(pageAt(NotFoundPage), '/no/such/page');
    await expect.element(screen.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await screen.getByRole('link', { name: 'Go to your projects' }).click();
    await expect.poll(() => router.state.location.pathname).toBe('/');
  });
});
