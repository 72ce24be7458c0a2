/**
 * The browser the tests drive: Debian's Chromium (Playwright cannot download its own builds here), installed
 * by scripts/web-tests.cjs when missing.
 */
export const CHROMIUM_PATH = process.env.VERDICT_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
