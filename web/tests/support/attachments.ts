import type { Locator, Page } from '@playwright/test';
import { expect } from './test';

// The steps a tester takes with the attachment gallery (a case's attachments, a run case's evidence).

/** A loaded image: the browser fetched its signed URL and decoded it. */
export async function expectLoaded(image: Locator) {
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
}

/** Attaches a file through the section's button and the browser's file chooser. */
export async function attachWithChooser(
  page: Page,
  button: Locator,
  file: { name: string; mimeType: string; buffer: Buffer },
) {
  const choosing = page.waitForEvent('filechooser');
  await button.click();
  await (await choosing).setFiles(file);
}

/** Drops a text file on `target`, as a file dragged from the desktop. */
export async function dropTextFile(page: Page, target: Locator, name: string, text: string) {
  const transfer = await page.evaluateHandle(
    ([fileName, content]) => {
      const data = new DataTransfer();
      data.items.add(new File([content], fileName, { type: 'text/plain' }));
      return data;
    },
    [name, text] as const,
  );
  await target.dispatchEvent('dragover', { dataTransfer: transfer });
  await target.dispatchEvent('drop', { dataTransfer: transfer });
}

/** Opens an image of the gallery `files` full size, sees it loaded, and closes it with Escape. */
export async function viewFullSize(page: Page, files: Locator, name: string) {
  await files.getByRole('button', { name: `Open ${name} full size` }).click();
  const full = page.getByRole('dialog', { name });
  await expectLoaded(full.getByRole('img', { name }));
  await page.keyboard.press('Escape');
  await expect(full).toHaveCount(0);
}
