import { errorSignature, type ErrorSignature, type ResultItem } from '@verdict/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseJUnitXml } from './junit';

// The repository's JUnit fixtures (written by the real runners, fixtures/README.md) through the importer and
// the error signature, as the errors explorer groups them: what a user of each runner expects to see.

function failuresOf(name: string): { item: ResultItem; signature: ErrorSignature }[] {
  const xml = readFileSync(path.join(__dirname, 'fixtures', 'junit', name), 'utf8');
  const { results } = parseJUnitXml(xml, { startedAt: '2026-11-22T12:00:00.000Z' });
  return results
    .filter((item) => item.error?.message)
    .map((item) => ({
      item,
      signature: errorSignature({
        message: item.error?.message ?? '',
        stack: item.error?.stack,
        location: item.error?.location,
        testFile: item.file,
      }),
    }));
}

const titled = (failures: ReturnType<typeof failuresOf>, title: string) =>
  failures.filter(({ item }) => item.titlePath.at(-1) === title);

describe('error signatures of imported JUnit reports', () => {
  it('when Surefire reruns the "discounted total" failure, then both attempts share one signature, framed at the test method', () => {
    const failures = failuresOf('surefire-TEST-com.example.shop.CartTest.xml');
    const discount = titled(failures, 'appliesADiscount');
    expect(discount.map(({ item }) => item.attempt)).toEqual([0, 1]);
    expect(new Set(discount.map(({ signature }) => signature.id)).size).toBe(1);
    expect(discount[0]?.signature.message).toMatch(/^discounted total ==> expected: /);
    expect(discount[0]?.signature.frame).toEqual({
      file: 'CartTest.java',
      function: 'com.example.shop.CartTest.appliesADiscount',
    });
  });

  it('when Surefire records a failure only in a rerun and an error, then each has a signature of its own', () => {
    const failures = failuresOf('surefire-TEST-com.example.shop.CartTest.xml');
    const ids = ['appliesADiscount', 'isFlakyAtFirst', 'readsThePriceList'].map(
      (title) => titled(failures, title)[0]?.signature.id,
    );
    expect(new Set(ids).size).toBe(3);
    expect(titled(failures, 'isFlakyAtFirst')[0]?.signature.text).toContain('fails on the first run only');
  });

  it('when gotestsum reports a t.Errorf, then its cart_test.go line gives the file frame and the numbers are placeholders', () => {
    const failures = failuresOf('gotestsum.xml');
    const discount = titled(failures, 'TestAppliesADiscount');
    expect(discount).toHaveLength(2);
    expect(new Set(discount.map(({ signature }) => signature.id)).size).toBe(1);
    expect(discount[0]?.signature).toMatchObject({
      message: 'cart_test.go:<n>: TotalWithDiscount(<n>, <n>) = <n>, want <n>',
      frame: { file: 'cart_test.go', function: null },
    });
    expect(titled(failures, 'refunds')[0]?.signature.frame).toEqual({ file: 'cart_test.go', function: null });
  });

  it('when gotestsum reports a parent test that failed only through its subtest, then it has no frame and a signature apart', () => {
    const failures = failuresOf('gotestsum.xml');
    const parent = titled(failures, 'TestCheckout')[0]?.signature;
    expect(parent?.frame).toBeNull();
    expect(parent?.id).not.toBe(titled(failures, 'refunds')[0]?.signature.id);
  });

  it("when pytest's assertion fails, then its numbers are normalised and the test file is the frame", () => {
    const [discount] = titled(failuresOf('pytest.xml'), 'test_applies_a_discount');
    expect(discount?.signature).toMatchObject({
      message: expect.stringMatching(/^assert <n> == <n>/),
      frame: { file: 'tests/test_cart.py' },
    });
    expect(discount?.signature.message).not.toMatch(/\d{3}/);
  });

  it('when pytest fails a fixture and an assertion, then the two differ', () => {
    const failures = failuresOf('pytest.xml');
    expect(titled(failures, 'test_reads_the_price_list')[0]?.signature.id).not.toBe(
      titled(failures, 'test_applies_a_discount')[0]?.signature.id,
    );
  });

  it.each(['jest-junit-configured.xml', 'jest-junit-default.xml'])(
    "when jest-junit (%s) reports an expect failure, then the frame is the test file's, not node_modules or Jest's",
    (name) => {
      const failures = failuresOf(name);
      expect(failures).toHaveLength(2);
      for (const { signature } of failures) {
        expect(signature.frame?.file).toMatch(/cart\.test\.js$/);
        expect(signature.text).not.toMatch(/node_modules|jest-circus/);
        expect(signature.id).toMatch(/^[0-9a-f]{12}$/);
      }
      expect(new Set(failures.map(({ signature }) => signature.id)).size).toBe(2);
    },
  );

  it('when the same report is imported twice, then every signature is the same', () => {
    for (const name of ['surefire-TEST-com.example.shop.CartTest.xml', 'gotestsum.xml', 'pytest.xml']) {
      expect(failuresOf(name).map(({ signature }) => signature)).toEqual(
        failuresOf(name).map(({ signature }) => signature),
      );
    }
  });
});
