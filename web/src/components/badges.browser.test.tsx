import { describe, expect, test } from 'vitest';
import { renderInApp } from '../testing/render';
import { RunStatus, StatCounts, StatusBadge } from './badges';

describe('StatusBadge and RunStatus', () => {
  test('when an outcome is shown, then its name is in words, never colour alone', async () => {
    const { screen } = await renderInApp(
      <>
        <StatusBadge status="failed" />
        <StatusBadge status="timedOut" />
      </>,
    );
    await expect.element(screen.getByText('failed')).toBeVisible();
    await expect.element(screen.getByText('timed out')).toBeVisible();
  });

  test('when a run is running, then it says running; once finished, its outcome', async () => {
    const { screen } = await renderInApp(<RunStatus status="running" outcome={null} />);
    await expect.element(screen.getByText('running')).toBeVisible();
    await screen.rerender(<RunStatus status="finished" outcome="passed" />);
    await expect.element(screen.getByText('passed')).toBeVisible();
    await screen.rerender(<RunStatus status="finished" outcome={null} />);
    await expect.element(screen.getByText('finished')).toBeVisible();
  });
});

describe('StatCounts', () => {
  test('when a run has results, then each count is labelled by its outcome for screen readers', async () => {
    const { screen } = await renderInApp(
      <StatCounts stats={{ total: 1300, passed: 1234, failed: 3, flaky: 0, skipped: 63 }} />,
    );
    await expect.element(screen.getByLabelText('1234 passed')).toHaveTextContent('1,234 passed');
    await expect.element(screen.getByLabelText('3 failed')).toBeVisible();
    await expect.element(screen.getByLabelText('0 flaky')).toBeVisible();
    await expect.element(screen.getByLabelText('63 skipped')).toBeVisible();
  });

  test('when the user hovers a count, then a tooltip says it in full', async () => {
    const { screen } = await renderInApp(
      <StatCounts stats={{ total: 1300, passed: 1234, failed: 3, flaky: 0, skipped: 63 }} />,
    );
    await screen.getByLabelText('3 failed').hover();
    await expect.element(screen.getByRole('tooltip')).toHaveTextContent('3 failed');
  });
});
