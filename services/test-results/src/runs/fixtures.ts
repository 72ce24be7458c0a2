import type { ResultItem } from '@verdict/contracts';

/**
 * Results shaped like a Playwright suite's (nested steps, a failure with stack and snippet now and then,
 * stdout, attachments), for tests and measurements that need realistic sizes: about 1.5 KB each.
 *
 * @example const batch = Array.from({ length: 1000 }, (_, i) => realisticResult(i));
 */
export function realisticResult(index: number, overrides: Partial<ResultItem> = {}): ResultItem {
  const spec = `tests/shop/feature-${index % 40}.spec.ts`;
  const failed = index % 17 === 0;
  const line = 10 + (index % 300);
  const startedAt = new Date(Date.UTC(2026, 2, 1, 10, 0, 0) + index * 250).toISOString();
  return {
    file: spec,
    titlePath: [`Feature ${index % 40}`, `scenario ${Math.floor(index / 40)}`, `test ${index}`],
    project: ['chromium', 'firefox', 'webkit'][index % 3],
    attempt: 0,
    status: failed ? 'failed' : 'passed',
    expectedStatus: 'passed',
    durationMs: 200 + ((index * 37) % 4_000),
    startedAt,
    ...(failed && {
      error: {
        message: `Error: expect(locator).toHaveText(expected)\n\nExpected: "Total: 42.00"\nReceived: "Total: 41.00"`,
        stack: `Error: expect(locator).toHaveText(expected)\n    at ${spec}:${line}:31\n    at async Page.click (node_modules/playwright-core/lib/client/page.js:112:5)`,
        snippet: `  ${line - 1} |   await page.getByRole('button', { name: 'Pay' }).click();\n> ${line} |   await expect(total).toHaveText('Total: 42.00');\n    |                       ^`,
        location: { file: spec, line, column: 31 },
      },
      attachments: [
        { name: 'screenshot', contentType: 'image/png', artifactId: `art-${index}-1` },
        { name: 'trace', contentType: 'application/zip', artifactId: `art-${index}-2` },
      ],
    }),
    steps: [
      {
        title: 'Before Hooks',
        category: 'hook',
        durationMs: 120,
        steps: [{ title: 'browserContext.newPage', category: 'pw:api', durationMs: 80 }],
      },
      {
        title: `page.goto(/shop/${index % 40})`,
        category: 'pw:api',
        durationMs: 340,
        location: { file: spec, line: line - 3, column: 5 },
      },
      {
        title: "locator.click(getByRole('button', { name: 'Add to cart' }))",
        category: 'pw:api',
        durationMs: 95,
        location: { file: spec, line: line - 2, column: 5 },
      },
      {
        title: 'expect.toHaveText',
        category: 'expect',
        durationMs: 60,
        location: { file: spec, line, column: 31 },
      },
      { title: 'After Hooks', category: 'hook', durationMs: 40 },
    ],
    stdout: [`[shop] seeded cart ${index}\n`, `[shop] checkout started at ${startedAt}\n`],
    annotations:
      index % 11 === 0 ? [{ type: 'issue', description: `https://issues.example.com/SHOP-${index}` }] : [],
    tags: ['@shop', index % 2 === 0 ? '@smoke' : '@regression'],
    location: { file: spec, line: line - 5, column: 3 },
    ...overrides,
  };
}
