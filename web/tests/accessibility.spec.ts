/**
 * Every page, in the light and the dark theme: no serious or critical accessibility violation (axe), and a
 * full-page screenshot of each, attached to the report (and copied to VERDICT_SCREENSHOTS_DIR when set).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, projectPath, settled, test } from './support/test';
import type { VerdictState } from './support/verdict';

interface PageCase {
  name: string;
  path: (verdict: VerdictState) => string;
  /** What shows once the page has its data. */
  ready: (page: Page) => ReturnType<Page['getByRole']>;
  signedIn?: boolean;
}

const PAGES: PageCase[] = [
  {
    name: 'sign-in',
    path: () => '/sign-in',
    ready: (page) => page.getByRole('heading', { name: 'Sign in to Verdict' }),
    signedIn: false,
  },
  {
    name: 'projects',
    path: () => '/projects',
    ready: (page) => page.getByRole('link', { name: 'Demo project' }),
  },
  {
    name: 'runs',
    path: (verdict) => projectPath(verdict, '/runs'),
    ready: (page) => page.getByRole('link', { name: '#3 Pull request #87' }),
  },
  {
    name: 'run',
    path: (verdict) => projectPath(verdict, `/runs/${verdict.failedRunId}`),
    ready: (page) => page.getByRole('heading', { name: 'Failures' }),
  },
  {
    name: 'test',
    path: (verdict) => verdict.failingUiUrl.slice(verdict.url.length),
    ready: (page) =>
      page.getByRole('heading', { name: 'Where else it failed' }).or(page.getByText('Where else it failed')),
  },
  {
    name: 'suite',
    path: (verdict) =>
      projectPath(
        verdict,
        `/runs/${verdict.failedRunId}/suites/${encodeURIComponent('tests/checkout.spec.ts')}`,
      ),
    ready: (page) => page.getByRole('table', { name: 'Tests of tests/checkout.spec.ts' }),
  },
  {
    name: 'explorer',
    path: (verdict) => projectPath(verdict, '/explorer'),
    ready: (page) => page.getByRole('table', { name: 'Test cases' }),
  },
  {
    name: 'flaky',
    path: (verdict) => projectPath(verdict, '/flaky'),
    ready: (page) => page.getByRole('table', { name: 'Flaky tests' }),
  },
  {
    name: 'quarantine',
    path: (verdict) => projectPath(verdict, '/quarantine'),
    ready: (page) => page.getByRole('heading', { level: 1, name: 'Quarantine' }),
  },
  {
    name: 'dashboard',
    path: (verdict) => projectPath(verdict, '/dashboard'),
    ready: (page) => page.getByRole('heading', { name: 'Recent runs' }),
  },
  {
    name: 'analytics',
    path: (verdict) => projectPath(verdict, '/analytics'),
    ready: (page) => page.getByRole('heading', { name: 'Slowest tests (average)' }),
  },
  {
    name: 'organization',
    path: (verdict) => projectPath(verdict, '/organization'),
    ready: (page) => page.getByRole('table', { name: 'Usage by project' }),
  },
  {
    name: 'test-cases',
    path: (verdict) => projectPath(verdict, '/cases'),
    ready: (page) => page.getByRole('table', { name: 'Manual test cases' }),
  },
  {
    name: 'test-case',
    path: (verdict) => projectPath(verdict, `/cases/${verdict.manual.caseIds[0]}`),
    ready: (page) => page.getByRole('heading', { name: 'History' }),
  },
  {
    name: 'manual-run',
    path: (verdict) => projectPath(verdict, `/manual-runs/${verdict.manual.runId}`),
    ready: (page) => page.getByRole('table', { name: 'Steps and their results' }),
  },
  {
    name: 'releases',
    path: (verdict) => projectPath(verdict, '/releases'),
    ready: (page) => page.getByRole('table', { name: 'Manual runs' }),
  },
  {
    name: 'settings',
    path: (verdict) => projectPath(verdict, '/settings'),
    ready: (page) => page.getByRole('heading', { name: 'Webhooks' }),
  },
];

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      help: violation.help,
      nodes: violation.nodes.map((node) => node.target.join(' ')).slice(0, 5),
    }));
}

test.describe('every page, light and dark', () => {
  for (const pageCase of PAGES) {
    test(`when the ${pageCase.name} page is shown in the light and the dark theme, then axe finds no serious or critical violation`, async ({
      page,
      verdict,
      signIn,
    }, testInfo) => {
      if (pageCase.signedIn !== false) await signIn('owner');
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        if (scheme === 'light') await page.goto(pageCase.path(verdict));
        await expect(pageCase.ready(page).first()).toBeVisible();
        await settled(page);
        await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
        const file = testInfo.outputPath(`${pageCase.name}-${scheme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        await testInfo.attach(`${pageCase.name}-${scheme}`, { path: file, contentType: 'image/png' });
        const keep = process.env.VERDICT_SCREENSHOTS_DIR;
        if (keep) {
          mkdirSync(keep, { recursive: true });
          copyFileSync(file, path.join(keep, `${pageCase.name}-${scheme}.png`));
        }
        expect(await seriousViolations(page), `${pageCase.name} page, ${scheme} theme`).toEqual([]);
      }
    });
  }
});
