import { expect, projectPath, test } from './support/test';

test.describe('from a red build to the failing line', () => {
  test("when the debug bundle's uiUrl of a failing test is opened, then the page shows its error, steps, screenshot and retry command", async ({
    page,
    context,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    expect(verdict.failingUiUrl).toBe(
      `${verdict.url}/projects/${verdict.projectId}/runs/${verdict.failedRunId}/tests/${verdict.failingCaseId}?attempt=1&project=chromium`,
    );
    await page.goto(verdict.failingUiUrl);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('checkout › pays with a card');
    await expect(page.getByTestId('error-message')).toContainText('Received string: "Card declined"');
    await expect(
      page.getByText("> 11 |   await expect(page.getByRole('status')).toHaveText('Paid');"),
    ).toBeVisible();

    const steps = page.getByRole('tree', { name: 'Steps' });
    await expect(steps.getByText("Expect getByRole('status') toHaveText 'Paid'")).toBeVisible();
    await expect(steps.getByText("Navigate to '/checkout'")).toBeVisible();

    const screenshot = page.getByRole('img', { name: 'Screenshot: screenshot' });
    await expect(screenshot).toBeVisible();
    await expect.poll(() => screenshot.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(640);
    await expect(page.getByLabel('Video: video')).toBeVisible();

    const command = 'npx playwright test tests/checkout.spec.ts:12 --project=chromium';
    await expect(page.getByTestId('retry-command')).toHaveText(command);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    await page.getByRole('button', { name: 'Copy command' }).click();
    await expect.poll(clipboard).toBe(command);

    await page.getByRole('button', { name: 'Copy debug bundle (Markdown)' }).click();
    await expect.poll(clipboard).toContain('## Error');
    expect(await clipboard()).toContain('Card declined');
  });

  test('when the trace of the failing attempt is opened, then it opens in the trace viewer this Verdict serves, with the actions it recorded', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(verdict.failingUiUrl);
    const opened = page.waitForEvent('popup');
    await page.getByRole('link', { name: 'Open trace', exact: true }).click();
    const viewer = await opened;
    const elsewhere: string[] = [];
    viewer.on('request', (request) => {
      if (!request.url().startsWith(verdict.url) && !/^(data|blob):/.test(request.url()))
        elsewhere.push(request.url());
    });
    await expect(viewer).toHaveURL(
      new RegExp(`^${verdict.url}/trace-viewer/\\?trace=${encodeURIComponent(`${verdict.url}/downloads/`)}`),
    );
    await expect(viewer.getByText('checkout pays')).toBeVisible();
    await expect(viewer.getByText(/^Click$/).first()).toBeVisible();
    await expect(viewer.getByText('Screenshot', { exact: true }).first()).toBeVisible();
    expect(elsewhere).toEqual([]);
  });

  test('when a person goes from the runs to a run, to its failing test, to its history, then each is one click from the last', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('viewer');
    await page.goto(projectPath(verdict, '/runs'));
    await page.getByRole('link', { name: '#3 Pull request #87' }).click();
    await expect(page.getByRole('heading', { name: 'Run #3 · Pull request #87' })).toBeVisible();
    await expect(page.getByText('Shards', { exact: true }).locator('..')).toContainText('2');

    // Failures first, grouped by their error.
    const list = page.getByRole('list', { name: 'Tests of the run' });
    await expect(list.getByRole('listitem').first()).toContainText('Failures');
    await expect(
      list.getByRole('button', { name: /^Error: expect\(locator\)\.toHaveText\(expected\) failed/ }),
    ).toContainText('2 tests');
    await expect(list.getByRole('button', { name: /^TimeoutError: locator\.fill/ })).toContainText('1 test');

    await list.getByRole('link', { name: 'checkout › pays with a card' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('checkout › pays with a card');

    const history = page.getByRole('list', { name: 'Outcome of each execution' });
    await expect(history.getByRole('listitem')).toHaveCount(6);
    await history.getByRole('listitem', { name: 'Run #2: flaky' }).click();
    await expect(page).toHaveURL(
      new RegExp(`/runs/${verdict.runIds[1]}/tests/${verdict.failingCaseId}\\?project=chromium$`),
    );
    await expect(page.getByText('attempt 2 of 2: passed')).toBeVisible();
    await page
      .locator('label')
      .filter({ hasText: /^First try$/ })
      .click();
    await expect(page.getByTestId('error-message')).toContainText('Timeout: 5000ms');
  });
});
