import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type TestInfo } from '@playwright/test';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The page as it is now, in the light and the dark theme: a full-page screenshot of each (attached, and
 * copied to VERDICT_SCREENSHOTS_DIR when set), and no serious or critical axe violation in either.
 */
export async function screenshotWithoutViolations(page: Page, testInfo: TestInfo, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
    const file = testInfo.outputPath(`${name}-${scheme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach(`${name}-${scheme}`, { path: file, contentType: 'image/png' });
    const keep = process.env.VERDICT_SCREENSHOTS_DIR;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      copyFileSync(file, path.join(keep, `${name}-${scheme}.png`));
    }
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    const serious = results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        nodes: violation.nodes.map((node) => node.target.join(' ')),
      }));
    expect(serious, `${name} page, ${scheme} theme`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
