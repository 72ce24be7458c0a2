import { readFileSync } from 'node:fs';
import { expect, projectPath, test } from './support/test';

test.describe('roles', () => {
  test('when a viewer signs in, then no write control shows: no PDF report on the run page nor on analytics', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('viewer');
    await page.goto(projectPath(verdict, `/runs/${verdict.failedRunId}`));
    await expect(page.getByRole('button', { name: 'Copy failures as Markdown' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'PDF report' })).toHaveCount(0);
    await page.getByRole('link', { name: 'Analytics' }).click();
    await expect(page.getByRole('heading', { name: 'Analytics', level: 1 })).toBeVisible();
    await expect(page.getByText('Durations over time')).toBeVisible();
    await expect(page.getByRole('button', { name: 'PDF report' })).toHaveCount(0);
  });

  test("when a member asks for a run's PDF report, then the PDF downloads", async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, `/runs/${verdict.failedRunId}`));
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'PDF report' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('verdict-run-3.pdf');
    const bytes = readFileSync((await download.path()) ?? '');
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });

  test('when a viewer opens the test case library, then no write control shows, and a write from its session is refused with 403', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('viewer');
    await page.goto(projectPath(verdict, '/cases'));
    await expect(page.getByRole('table', { name: 'Manual test cases' })).toContainText(
      'Pay with a saved card',
    );
    await expect(page.getByRole('button', { name: 'New suite' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'New case' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Actions of suite/ })).toHaveCount(0);
    await expect(page.getByRole('checkbox')).toHaveCount(0);
    // With the session's cookie and its CSRF token, as the app would send it: the role refuses it.
    const session = (await (await page.request.get('/api/public/v1/session')).json()) as {
      data: { csrfToken: string };
    };
    const write = await page.request.post(`/api/public/v1/${verdict.projectId}/manual-suites`, {
      headers: { 'X-CSRF-Token': session.data.csrfToken },
      data: { name: 'Not allowed' },
    });
    expect(write.status()).toBe(403);
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
  });
});
