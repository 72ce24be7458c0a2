import { expect, projectPath, test } from './support/test';
import { newPerson, revoke } from './support/verdict';

test.describe('signing in and out', () => {
  test('when a newcomer opens the sign-in link npm start printed, then one click lands them in the app, and the link works only once', async ({
    page,
    browser,
    verdict,
  }) => {
    await page.goto(verdict.signInLink);
    await expect(page).toHaveURL(`${verdict.url}${projectPath(verdict, '/runs')}`);
    await expect(page.getByRole('heading', { name: 'Runs', level: 1 })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Account: Demo User' })).toBeVisible();
    // The code is spent: it left the address bar and the history.
    expect(page.url()).not.toContain('code=');

    const elsewhere = await browser.newContext();
    try {
      const second = await elsewhere.newPage();
      await second.goto(verdict.signInLink);
      await expect(second.getByRole('alert')).toContainText('used already or has expired');
      await expect(second.getByLabel('Personal access token')).toBeVisible();
    } finally {
      await elsewhere.close();
    }
  });

  test('when a person follows a deep link signed out, signs in with a token, then signs out, then the session opens and closes, and the token stays out of the page', async ({
    page,
    context,
    verdict,
  }) => {
    const person = await newPerson(verdict, 'member');
    await page.goto(projectPath(verdict, '/dashboard'));
    await expect(page).toHaveURL(/\/sign-in\?next=/);

    await page.getByLabel('Personal access token').fill(`${person.token.slice(0, -3)}xyz`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('Invalid token');

    await page.getByLabel('Personal access token').fill(person.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(`${verdict.url}${projectPath(verdict, '/dashboard')}`);
    await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();

    const [cookie] = (await context.cookies()).filter((candidate) => candidate.name === 'verdict_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const readable = await page.evaluate(() =>
      JSON.stringify([localStorage, sessionStorage, document.cookie]),
    );
    expect(readable).not.toContain(person.token);
    expect(readable).not.toContain('verdict_session');

    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    expect((await context.cookies()).some((candidate) => candidate.name === 'verdict_session')).toBe(false);
    await page.goto(projectPath(verdict, '/runs'));
    await expect(page).toHaveURL(/\/sign-in\?next=/);
  });

  test("when the session's token is revoked, then the app's next request is refused and it asks to sign in again", async ({
    page,
    verdict,
    signIn,
  }) => {
    const person = await signIn('member');
    await page.goto(projectPath(verdict, '/runs'));
    await expect(page.getByRole('heading', { name: 'Runs', level: 1 })).toBeVisible();

    await revoke(verdict, person.tokenId);
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await expect(page).toHaveURL(/\/sign-in\?next=/);
    expect(decodeURIComponent(page.url())).toContain(projectPath(verdict, '/dashboard'));
    const answer = await page.request.get(`${verdict.url}/api/public/v1/session`);
    expect(answer.status()).toBe(401);
  });
});
