import { ResultItem, resultKey } from '@verdict/contracts';
import { PayloadTooLargeError, ValidationError } from '@verdict/platform';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { JUnitImport, JUnitImportOptions } from './junit';
import { parseJUnitXml } from './junit';

// The fixtures were written by the real runners; fixtures/README.md says how.
const RECEIVED_AT = '2026-11-22T12:00:00.000Z';

function fixture(name: string): string {
  return readFileSync(path.join(__dirname, 'fixtures', 'junit', name), 'utf8');
}

function importFixture(name: string, options: JUnitImportOptions = { startedAt: RECEIVED_AT }): JUnitImport {
  return parseJUnitXml(fixture(name), options);
}

const FIXTURES = [
  'jest-junit-configured.xml',
  'jest-junit-default.xml',
  'pytest.xml',
  'surefire-TEST-com.example.shop.CartTest.xml',
  'surefire-TEST-com.example.shop.CartTest-Checkout.xml',
  'gotestsum.xml',
];

test.each(FIXTURES)('when %s is imported, then every item is a valid result item', (name) => {
  const { results } = importFixture(name);
  expect(results.length).toBeGreaterThan(0);
  for (const item of results) expect(ResultItem.parse(item)).toEqual(item);
});

function countByStatus(items: ResultItem[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.status] = (counts[item.status] ?? 0) + 1;
  return counts;
}

function byTitle(items: ResultItem[], ...titlePath: string[]): ResultItem[] {
  return items
    .filter((item) => JSON.stringify(item.titlePath) === JSON.stringify(titlePath))
    .sort((a, b) => a.attempt - b.attempt);
}

function only(items: ResultItem[], ...titlePath: string[]): ResultItem {
  const found = byTitle(items, ...titlePath);
  expect(found).toHaveLength(1);
  return found[0] as ResultItem;
}

describe('jest-junit, configured with file attributes and " › " ancestors', () => {
  const { dialect, run, results } = importFixture('jest-junit-configured.xml');

  test('when imported, then it is recognised as jest and every testcase is one attempt', () => {
    expect(dialect).toBe('jest');
    expect(run).toEqual({
      startedAt: '2026-11-22T11:19:08.000Z',
      durationMs: 366,
      framework: { name: 'jest' },
    });
    expect(results).toHaveLength(6);
    expect(countByStatus(results)).toEqual({ passed: 3, failed: 2, skipped: 1 });
    expect(results.every((item) => item.attempt === 0)).toBe(true);
  });

  test('when imported, then file comes from the file attribute and titlePath from classname and name', () => {
    expect(only(results, 'cart', 'totals', 'adds line items')).toMatchObject({
      file: 'src/cart/cart.test.js',
      status: 'passed',
      durationMs: 17,
      // jest-junit writes local time without an offset; it is read as UTC.
      startedAt: '2026-11-22T11:19:08.000Z',
    });
    expect(only(results, 'charges the card').file).toBe('src/checkout.test.js');
  });

  test('when a failure has no message attribute, then the message is the text before the stack frames', () => {
    const failure = only(results, 'cart', 'totals', 'applies a discount').error;
    expect(failure?.message).toBe(
      'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 180\nReceived: 190',
    );
    expect(failure?.stack).toContain('at Object.toBe (/tmp/jest-fixture/src/cart/cart.test.js:13:42)');
    expect(failure?.stack).toContain('at new Promise (<anonymous>)');
    expect(only(results, 'cart', 'reads the price list').error?.message).toBe('Error: price list missing');
  });

  test("when the suite has console output, then the suite's failed results carry it and the others do not", () => {
    const failed = results.filter((item) => item.status === 'failed');
    expect(failed).toHaveLength(2);
    for (const item of failed) expect(item.stdout?.join('')).toContain('"message": "cart total computed"');
    expect(only(results, 'cart', 'totals', 'adds line items').stdout).toBeUndefined();
  });
});

describe('jest-junit with its defaults', () => {
  const { results } = importFixture('jest-junit-default.xml');

  test('when imported, then the whole name is the title and the suite name stands in for the file', () => {
    expect(results).toHaveLength(6);
    expect(countByStatus(results)).toEqual({ passed: 3, failed: 2, skipped: 1 });
    expect(only(results, 'cart totals applies a discount')).toMatchObject({ file: 'cart', status: 'failed' });
    // Top-level tests get jest-junit's literal suite name, and lose the space of "{classname} {title}".
    expect(only(results, 'charges the card').file).toBe('undefined');
  });
});

describe('pytest --junitxml', () => {
  const { dialect, run, results } = importFixture('pytest.xml');

  test('when imported, then it is recognised as pytest with its counts, start and duration', () => {
    expect(dialect).toBe('pytest');
    expect(run).toEqual({
      startedAt: '2026-11-22T11:17:55.927Z',
      durationMs: 55,
      framework: { name: 'pytest' },
    });
    expect(results).toHaveLength(7);
    expect(countByStatus(results)).toEqual({ passed: 4, failed: 2, skipped: 1 });
  });

  test('when imported, then the module path is the file and test classes lead the titlePath', () => {
    expect(new Set(results.map((item) => item.file))).toEqual(new Set(['tests/test_cart.py']));
    expect(results.map((item) => item.titlePath)).toContainEqual(['test_adds_line_items']);
    expect(results.map((item) => item.titlePath)).toContainEqual(['TestCheckout', 'test_refunds[1]']);
    expect(only(results, 'test_adds_line_items').durationMs).toBe(1);
  });

  test('when an assertion fails, then the message attribute (entities decoded) and the traceback are kept', () => {
    const error = only(results, 'test_applies_a_discount').error;
    expect(error?.message).toBe('assert 190 == 180\n +  where 190 = total_with_discount(200, 10)');
    expect(error?.stack).toContain('>       assert total_with_discount(200, 10) == 180');
    expect(error?.stack).toContain('tests/test_cart.py:19: AssertionError');
  });

  test('when a fixture errors, then the JUnit error is a failed result with its message', () => {
    const item = only(results, 'test_reads_the_price_list');
    expect(item.status).toBe('failed');
    expect(item.error?.message).toBe('failed on setup with "FileNotFoundError: price list missing"');
    expect(item.error?.stack).toContain('E       FileNotFoundError: price list missing');
  });

  test("when a test prints, then its stdout is kept without pytest's section rule, and silent tests have none", () => {
    expect(only(results, 'test_adds_line_items').stdout).toEqual(['cart total computed\n']);
    expect(only(results, 'test_applies_a_discount').stdout).toBeUndefined();
  });

  test('when a test is skipped or records a property, then they become annotations', () => {
    expect(only(results, 'test_exports_the_cart')).toMatchObject({
      status: 'skipped',
      annotations: [{ type: 'skip', description: 'not written yet' }],
    });
    expect(only(results, 'TestCheckout', 'test_charges_the_card').annotations).toEqual([
      { type: 'card', description: 'visa' },
    ]);
  });
});

describe('Maven Surefire with -Dsurefire.rerunFailingTestsCount=1', () => {
  const { dialect, run, results } = importFixture('surefire-TEST-com.example.shop.CartTest.xml');

  test('when imported, then it is recognised as Surefire and starts at the given default (Surefire writes no timestamp)', () => {
    expect(dialect).toBe('surefire');
    expect(run).toEqual({ startedAt: RECEIVED_AT, durationMs: 19, framework: { name: 'maven-surefire' } });
    expect(results.every((item) => item.startedAt === RECEIVED_AT)).toBe(true);
    expect(new Set(results.map((item) => item.file))).toEqual(new Set(['com.example.shop.CartTest']));
  });

  test('when a test failed and then passed on rerun, then it is a failed attempt followed by a passed one', () => {
    const attempts = byTitle(results, 'isFlakyAtFirst');
    expect(attempts.map((item) => [item.attempt, item.status])).toEqual([
      [0, 'failed'],
      [1, 'passed'],
    ]);
    expect(attempts[0]?.error?.message).toBe(
      'fails on the first run only ==> expected: <second run> but was: <first run>',
    );
    expect(attempts[0]?.error?.stack).toContain(
      'at com.example.shop.CartTest.isFlakyAtFirst(CartTest.java:41)',
    );
    expect(attempts[1]?.error).toBeUndefined();
    expect(attempts[1]?.durationMs).toBe(1);
  });

  test('when a test failed on every run, then each run is a failed attempt', () => {
    const attempts = byTitle(results, 'appliesADiscount');
    expect(attempts.map((item) => [item.attempt, item.status])).toEqual([
      [0, 'failed'],
      [1, 'failed'],
    ]);
    for (const attempt of attempts) {
      expect(attempt.error?.message).toBe('discounted total ==> expected: <180> but was: <190>');
      expect(attempt.error?.stack).toContain('CartTest.java:21');
    }
    expect(attempts[0]?.durationMs).toBe(3);
  });

  test('when a test threw on every run, then each run is a failed attempt with its own stderr', () => {
    const attempts = byTitle(results, 'readsThePriceList');
    expect(attempts.map((item) => [item.attempt, item.status, item.stderr])).toEqual([
      [0, 'failed', ['loading prices\n']],
      [1, 'failed', ['loading prices\n']],
    ]);
    expect(attempts[0]?.error?.message).toBe('price list missing');
    expect(attempts[0]?.error?.stack).toMatch(/^java\.lang\.IllegalStateException: price list missing/);
  });

  test('when imported, then counts by status cover every attempt', () => {
    expect(results).toHaveLength(8);
    expect(countByStatus(results)).toEqual({ passed: 2, failed: 5, skipped: 1 });
    expect(only(results, 'exportsTheCart').annotations).toEqual([
      { type: 'skip', description: 'not written yet' },
    ]);
  });

  test('when a nested class reports, then its outer class is the file and the nested class leads the titlePath', () => {
    const nested = importFixture('surefire-TEST-com.example.shop.CartTest-Checkout.xml').results;
    expect(nested).toEqual([
      expect.objectContaining({
        file: 'com.example.shop.CartTest',
        titlePath: ['Checkout', 'chargesTheCard'],
        status: 'passed',
        durationMs: 2,
      }),
    ]);
  });

  test('when no suite has a timestamp and no default is given, then the import is refused', () => {
    expect(() => parseJUnitXml(fixture('surefire-TEST-com.example.shop.CartTest.xml'))).toThrow(
      /has no start: its suite has no timestamp/,
    );
  });
});

describe('gotestsum --junitfile with --rerun-fails', () => {
  const { dialect, run, results } = importFixture('gotestsum.xml');

  test('when imported, then it is recognised as Go, the package is the file and subtests split the titlePath', () => {
    expect(dialect).toBe('gotestsum');
    expect(run).toEqual({
      startedAt: '2026-11-22T11:18:58.000Z',
      durationMs: 599.208,
      framework: { name: 'go', version: 'go1.26.8' },
    });
    expect(new Set(results.map((item) => item.file))).toEqual(new Set(['example.com/shop/cart']));
    expect(only(results, 'TestCheckout', 'charges_the_card').status).toBe('passed');
  });

  test('when a test appears again after a rerun, then it is the next attempt', () => {
    expect(byTitle(results, 'TestIsFlakyAtFirst').map((item) => [item.attempt, item.status])).toEqual([
      [0, 'failed'],
      [1, 'passed'],
    ]);
    expect(byTitle(results, 'TestAppliesADiscount').map((item) => [item.attempt, item.status])).toEqual([
      [0, 'failed'],
      [1, 'failed'],
    ]);
    expect(new Set(results.map(resultKey)).size).toBe(results.length);
    expect(countByStatus(results)).toEqual({ passed: 3, failed: 7, skipped: 1 });
  });

  test('when a test fails, then its message is its own log line rather than gotestsum\'s "Failed"', () => {
    const [first] = byTitle(results, 'TestAppliesADiscount');
    expect(first?.error?.message).toBe('cart_test.go:19: TotalWithDiscount(200, 10) = 190, want 180');
    expect(first?.error?.stack).toContain('--- FAIL: TestAppliesADiscount');
    // A parent that only failed through its subtest logged nothing of its own.
    expect(byTitle(results, 'TestCheckout')[0]?.error?.message).toBe('Failed');
  });

  test('when a test skips, then the skip line is its skip annotation', () => {
    expect(only(results, 'TestExportsTheCart')).toMatchObject({
      status: 'skipped',
      annotations: [{ type: 'skip', description: 'cart_test.go:24: not written yet' }],
    });
  });
});

describe('documents that are not acceptable', () => {
  test('when a DOCTYPE declares entities, then the document is refused before any expansion', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>' +
      '<testsuite name="s" timestamp="2026-01-01T00:00:00Z"><testcase name="&lol2;"/></testsuite>';
    expect(() => parseJUnitXml(laughs)).toThrow(ValidationError);
    expect(() => parseJUnitXml(laughs)).toThrow(/entity declarations are not accepted/);
  });

  test('when the document is larger than the limit, then it is refused as too large', () => {
    const xml = fixture('pytest.xml');
    expect(() => parseJUnitXml(xml, { maxBytes: 1_000 })).toThrow(PayloadTooLargeError);
    expect(parseJUnitXml(xml, { maxBytes: Buffer.byteLength(xml) }).results).toHaveLength(7);
  });

  test('when the XML is malformed, then the error says where', () => {
    expect(() => parseJUnitXml('<testsuite name="s">\n<testcase name="a">\n</testsuite>')).toThrow(
      /Malformed XML at line 3/,
    );
    expect(() => parseJUnitXml('   ')).toThrow(ValidationError);
  });

  test('when the root is not testsuites or testsuite, then it is not a JUnit report', () => {
    expect(() => parseJUnitXml('<html><body/></html>')).toThrow(/root element is <html>/);
  });

  test('when a timestamp or the default start is unreadable, then the import is refused', () => {
    expect(() =>
      parseJUnitXml('<testsuite name="s" timestamp="soon"><testcase name="a"/></testsuite>'),
    ).toThrow(/unreadable timestamp "soon"/);
    expect(() => parseJUnitXml(fixture('gotestsum.xml'), { startedAt: 'later' })).toThrow(
      /not an ISO 8601 instant/,
    );
  });
});

describe('options and limits', () => {
  test('when the caller names the dialect, then detection is skipped', () => {
    const { dialect, results } = importFixture('pytest.xml', { dialect: 'generic', startedAt: RECEIVED_AT });
    expect(dialect).toBe('generic');
    expect(results.map((item) => item.titlePath)).toContainEqual([
      'tests.test_cart.TestCheckout',
      'test_refunds[1]',
    ]);
  });

  test('when no runner can be told from the document, then the run names the format, junit, as its framework', () => {
    const xml = `<testsuites><testsuite name="com.acme.FooTest"><testcase classname="com.acme.FooTest" name="brokenTest"><failure message="expected 1">stack</failure></testcase></testsuite></testsuites>`;
    const parsed = parseJUnitXml(xml, { startedAt: RECEIVED_AT });
    expect(parsed.dialect).toBe('generic');
    expect(parsed.run.framework).toEqual({ name: 'junit' });
  });

  test('when a failure is longer than the contract allows, then it is clipped and the item stays valid', () => {
    const huge = 'x'.repeat(300_000);
    const xml = `<testsuite name="s" timestamp="2026-01-01T00:00:00"><testcase name="a" classname="c" time="1.5"><failure message="${huge}">${huge}</failure><system-out>${huge}</system-out></testcase></testsuite>`;
    const [item] = parseJUnitXml(xml).results;
    expect(ResultItem.parse(item)).toEqual(item);
    expect(item?.error?.message.length).toBe(100_000);
    expect(item?.error?.stack?.length).toBe(200_000);
    expect(item?.stdout?.[0]).toMatch(/more characters cut\]$/);
    expect(item).toMatchObject({ durationMs: 1_500, startedAt: '2026-01-01T00:00:00.000Z' });
  });
});
