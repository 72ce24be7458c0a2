import type { Page } from '@playwright/test';
import { expect } from './test';

/**
 * Reads a secret the app shows once (a token, a webhook's signing secret): it matches `pattern`, the copy
 * button puts the same text on the clipboard, and "I have copied it" closes the dialog. Answers the secret.
 */
export async function takeSecretShownOnce(
  page: Page,
  shown: { label: string; copy: string; pattern: RegExp },
): Promise<string> {
  const field = page.getByLabel(shown.label, { exact: true });
  await expect(field).toHaveText(shown.pattern);
  const secret = (await field.textContent()) ?? '';
  await page.getByRole('button', { name: shown.copy }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await page.getByRole('button', { name: 'I have copied it' }).click();
  return secret;
}
