/**
 * The tests' `test`: Playwright's, with the Verdict the global setup started (`verdict`) and `signIn`,
 * which opens a session for a new person of the given role the way the app does (POST /session, whose
 * cookie the page then carries).
 */
import { expect, test as base, type Page } from '@playwright/test';
import { newPerson, verdictState, type VerdictState } from './verdict';

export interface Person {
  userId: string;
  tokenId: string;
  token: string;
}

export const test = base.extend<{
  verdict: VerdictState;
  signIn: (role?: 'owner' | 'admin' | 'member' | 'viewer') => Promise<Person>;
}>({
  // eslint-disable-next-line no-empty-pattern
  verdict: async ({}, use) => {
    await use(verdictState());
  },
  baseURL: async ({ verdict }, use) => {
    await use(verdict.url);
  },
  signIn: async ({ page, verdict }, use) => {
    await use(async (role = 'member') => {
      const person = await newPerson(verdict, role);
      await openSession(page, person);
      return person;
    });
  },
});

export { expect };

/**
 * Opens a session for `person` in the page's browser context the way the app does (POST /session with
 * their token; the context then carries its cookie). A context that had a session gets the new person's.
 */
export async function openSession(page: Page, person: { token: string }): Promise<void> {
  const answer = await page.request.post('/api/public/v1/session', { data: { token: person.token } });
  expect(answer.status()).toBe(201);
}

/** The app's path of a project page. */
export const projectPath = (verdict: VerdictState, rest: string) => `/projects/${verdict.projectId}${rest}`;

/** Waits until no request of the page is in flight and the app shows no loading state. */
export async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
}
