// The web app's component tests (web/src/**/*.browser.test.tsx): Vitest's browser mode renders each
// component in a real Chromium (Debian's, as the browser tests use: Playwright cannot download its own
// here), so Mantine's layout, focus and dnd-kit's keyboard sensor behave as in the app. `npm test` runs them
// after jest; alone: `npm run test:components` (arguments after `--` go to vitest).
import react from '@vitejs/plugin-react';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  // Every library the tests reach, optimised before the first test: one found later makes Vite reload the
  // page mid-run (two copies of React, and failed tests).
  optimizeDeps: {
    include: [
      '@dnd-kit/core',
      '@dnd-kit/sortable',
      '@dnd-kit/utilities',
      '@mantine/core',
      '@mantine/hooks',
      '@tabler/icons-react',
      '@tanstack/react-query',
      '@tanstack/react-router',
      '@tanstack/react-virtual',
      'react',
      'react-dom',
      'react-dom/client',
      'react/jsx-dev-runtime',
      'vitest-browser-react',
    ],
  },
  test: {
    include: ['src/**/*.browser.test.tsx'],
    setupFiles: ['src/testing/setup.ts'],
    // A test's stand-in API (src/testing/api.ts) is gone after it.
    unstubGlobals: true,
    // The machine may be busy (npm test runs other suites before): a slow render is not a failure.
    testTimeout: 60_000,
    expect: { poll: { timeout: 10_000 } },
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({
        launchOptions: { executablePath: process.env.VERDICT_CHROMIUM ?? '/usr/bin/chromium' },
        // The copy buttons' tests read back what they put on the clipboard.
        contextOptions: { permissions: ['clipboard-read', 'clipboard-write'] },
      }),
      instances: [{ browser: 'chromium' }],
      // A desktop window, as the app is laid out for (Vitest's default is a phone's).
      viewport: { width: 1280, height: 800 },
      screenshotFailures: false,
    },
  },
});
