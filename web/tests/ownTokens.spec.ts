import { screenshotWithoutViolations } from './support/screenshots';
import { takeSecretShownOnce } from './support/secrets';
import { expect, projectPath, test } from './support/test';

test.describe('project settings: your tokens', () => {
  test("when a viewer issues a token on the settings page, then its secret shows once, it reads with the viewer's role, its last use is listed, and it is revoked after a confirmation", async ({
    page,
    context,
    verdict,
    signIn,
  }, testInfo) => {
    await signIn('viewer');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(projectPath(verdict, '/settings'));
    const section = page.getByRole('region', { name: 'Your tokens' });
    const table = section.getByRole('table', { name: 'Your tokens' });
    // The token the session was opened with is listed, and marked.
    await expect(table.getByRole('row').filter({ hasText: 'This session' })).toHaveCount(1);

    await section.getByRole('button', { name: 'New token' }).click();
    const dialog = page.getByRole('dialog', { name: 'New token' });
    await expect(dialog.getByRole('button', { name: 'Issue token' })).toBeDisabled();
    await dialog.getByLabel('Name').fill('Nightly report');
    await dialog.getByRole('combobox', { name: 'Expires after' }).click();
    await page.getByRole('option', { name: '30 days' }).click();
    await dialog.getByRole('button', { name: 'Issue token' }).click();

    const secret = await takeSecretShownOnce(page, {
      label: 'Token',
      copy: 'Copy the token',
      pattern: /^svc_pat_\S+$/,
    });
    const row = table.getByRole('row').filter({ hasText: 'Nightly report' });
    await expect(row).toContainText('active');
    await expect(row).toContainText('public-api');
    await expect(row).toContainText('never');

    // The token acts as the viewer: it reads, and its writes are refused.
    const bearer = { Authorization: `Bearer ${secret}` };
    const info = await page.request.get(`/api/public/v1/${verdict.projectId}/token-info`, {
      headers: bearer,
    });
    expect(info.status()).toBe(200);
    expect(((await info.json()) as { data: { role: string } }).data.role).toBe('viewer');
    const write = await page.request.post(`/api/public/v1/${verdict.projectId}/manual-suites`, {
      headers: bearer,
      data: { name: 'Not allowed' },
    });
    expect(write.status()).toBe(403);
    // Nor can it mint tokens of its own.
    const mint = await page.request.post('/api/public/v1/session/tokens', {
      headers: bearer,
      data: { name: 'Successor' },
    });
    expect(mint.status()).toBe(403);

    // Shown once: nowhere on the page after a reload; the use is listed.
    await page.reload();
    await expect(row).toBeVisible();
    await expect(page.getByText(secret)).toHaveCount(0);
    await expect(row).not.toContainText('never');
    await screenshotWithoutViolations(page, testInfo, 'settings-tokens');

    await row.getByRole('button', { name: 'Revoke Nightly report' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke Nightly report?' });
    await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await confirm.getByRole('button', { name: 'Revoke token' }).click();
    await expect(row).toContainText('revoked');
    await expect(row.getByRole('button', { name: /^Revoke/ })).toHaveCount(0);
    const after = await page.request.get(`/api/public/v1/${verdict.projectId}/token-info`, {
      headers: bearer,
    });
    expect(after.status()).toBe(401);
  });

  test('when a person revokes the token they signed in with, then the page warns first and then asks to sign in again', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, '/settings'));
    const table = page.getByRole('table', { name: 'Your tokens' });
    await table.getByRole('button', { name: 'Revoke Unnamed token' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke this token?' });
    await expect(confirm).toContainText('revoking it signs you out here');
    await confirm.getByRole('button', { name: 'Revoke token' }).click();
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test('when the session asks for a token without a name or for longer than a year, then the API refuses it with 400 saying why', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, '/settings'));
    const session = (await (await page.request.get('/api/public/v1/session')).json()) as {
      data: { csrfToken: string };
    };
    const headers = { 'X-CSRF-Token': session.data.csrfToken };
    const unnamed = await page.request.post('/api/public/v1/session/tokens', {
      headers,
      data: { name: ' ' },
    });
    expect(unnamed.status()).toBe(400);
    const tooLong = await page.request.post('/api/public/v1/session/tokens', {
      headers,
      data: { name: 'Forever', expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() },
    });
    expect(tooLong.status()).toBe(400);
    expect(((await tooLong.json()) as { error: { message: string } }).error.message).toMatch(
      /at most 365 days/,
    );
  });
});
