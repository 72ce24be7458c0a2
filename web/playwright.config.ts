/**
 * The web app's browser tests: @playwright/test driving Debian's Chromium against a real `npm start`
 * (started once by tests/global-setup.ts on a free port, with its own data folder). `npm test` runs them
 * after the jest projects (scripts/web-tests.cjs); `npm run test:web` runs them alone.
 */
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './tests/support/chromium';

export default defineConfig({
  testDir: './tests',
  testMatch: '**/*.spec.ts',
  globalSetup: './tests/global-setup.ts',
  outputDir: './test-results',
  // One browser at a time: the machine has two cores, and Verdict itself runs beside the browser.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [
    ['list'],
    ...(process.env.VERDICT_WEB_TEST_REPORT
      ? [['json', { outputFile: process.env.VERDICT_WEB_TEST_REPORT }] as const]
      : []),
  ],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
