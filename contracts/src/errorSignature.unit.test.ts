import { ERROR_SIGNATURE_VERSION, errorSignature, normaliseMessage } from './errorSignature';
import { ErrorSignature } from './errorSignatureSchemas';
import { ERROR_FIXTURES, fixture } from './fixtures/errors';

describe('error signature, on real errors of each runner', () => {
  it.each([
    [
      'playwright locator timeout',
      'TimeoutError: locator.click: Timeout <duration> exceeded.',
      'tests/shop.spec.ts',
      null,
    ],
    [
      'playwright toBeVisible',
      "Error: expect(locator).toBeVisible() failed\nLocator: getByText('Order confirmed')\nExpected: visible\nTimeout: <duration>",
      'tests/shop.spec.ts',
      null,
    ],
    [
      'playwright HTTP 503',
      'Error: GET /api/carts answered 503\nexpect(received).toBe(expected) // Object.is equality\nExpected: 200\nReceived: 503',
      'tests/shop.spec.ts',
      null,
    ],
    [
      'playwright connection refused',
      'Error: apiRequestContext.get: connect ECONNREFUSED <ip>:<port>',
      'tests/shop.spec.ts',
      null,
    ],
    [
      'playwright expect with a code frame',
      'Error: expect(received).toBe(expected) // Object.is equality\nExpected: <n>\nReceived: <n>',
      'tests/cart.pw.ts',
      null,
    ],
    [
      'jest toBe',
      'expect(received).toBe(expected) // Object.is equality\nExpected: <n>\nReceived: <n>',
      'cart.test.js',
      'Object.toBe',
    ],
    ['jest ENOENT', "ENOENT: no such file or directory, open '<path>'", 'cart.test.js', 'Object.<anonymous>'],
    [
      'jest JSON.parse',
      'Expected double-quoted property name in JSON at position <n>',
      'cart.test.js',
      'Object.parse',
    ],
    ['pytest assert', 'assert <n> == <n>\n+ where <n> = total(<n>, <n>)', 'test_cart.py', null],
    ['pytest KeyError', "KeyError: 'order <uuid> not found'", 'test_cart.py', null],
    [
      'go panic',
      'panic: assignment to entry in nil map [recovered, repanicked]',
      'go/cart.go',
      'example.com/shop.(*Cart).Add',
    ],
  ])('when %s, then the message is normalised and the first own frame kept', (name, message, file, fn) => {
    const signature = errorSignature(fixture(name));
    expect(signature.message).toBe(message);
    expect(signature.frame).toEqual({ file, function: fn });
    expect(ErrorSignature.parse(signature)).toEqual(signature);
  });

  it('when the same fault fails again with other numbers, ids and paths, then the signature is the same', () => {
    expect(errorSignature(fixture('jest ENOENT')).id).toBe(
      errorSignature(fixture('jest ENOENT, second run')).id,
    );
    expect(errorSignature(fixture('pytest KeyError')).id).toBe(
      errorSignature(fixture('pytest KeyError, second run')).id,
    );
  });

  it('when two fixtures are different faults, then their signatures differ', () => {
    const firsts = ERROR_FIXTURES.filter((f) => !f.name.endsWith('second run'));
    expect(new Set(firsts.map((f) => errorSignature(f).id)).size).toBe(firsts.length);
  });

  it('when a frame is in node_modules, the runner or the language runtime, then the first own frame is named', () => {
    expect(errorSignature(fixture('jest ENOENT')).frame?.function).toBe('Object.<anonymous>');
    expect(errorSignature(fixture('go panic')).frame?.file).toBe('go/cart.go');
  });

  it('when the stack names no own file, then the runner-reported location is the frame', () => {
    const signature = errorSignature({
      message: 'boom',
      stack: 'Error: boom\n    at x (node:internal/a:1:2)',
      location: { file: '/ci/w/tests/a.spec.ts' },
      testFile: 'tests/a.spec.ts',
    });
    expect(signature.frame).toEqual({ file: 'tests/a.spec.ts', function: null });
  });

  it('when the same error is thrown from two checkouts of the project, then the frame and signature are the same', () => {
    const at = (root: string) =>
      errorSignature({
        message: 'Error: nope',
        stack: `Error: nope\n    at checkout (${root}/tests/pay.spec.ts:12:7)`,
        testFile: 'tests/pay.spec.ts',
      });
    expect(at('/home/runner/work/shop/shop').id).toBe(at('/builds/acme/shop').id);
  });

  it('when a signature is computed, then its id is 12 hex characters that change with the version', () => {
    expect(errorSignature({ message: 'x' }).id).toMatch(/^[0-9a-f]{12}$/);
    expect(ERROR_SIGNATURE_VERSION).toBe(1);
  });
});

describe('message normalisation', () => {
  it.each([
    ['\u001b[31mTest timeout of 30000ms exceeded.\u001b[39m', 'Test timeout of <duration> exceeded.'],
    ['Request failed with status code 500', 'Request failed with status code 500'],
    ['Request failed with status code 503', 'Request failed with status code 503'],
    ['expected 3 items, got 4', 'expected <n> items, got <n>'],
    ['user 7c9e6679-7425-40de-944b-e07cc4ab3f9e missing', 'user <uuid> missing'],
    ['commit 3f2a9c81d4e5 not found', 'commit <hex> not found'],
    ['pointer 0x7ffd5e8c', 'pointer <hex>'],
    ['at 2026-11-29T01:02:03.456Z the job stopped', 'at <time> the job stopped'],
    ['took 1.5s', 'took <duration>'],
    ['connect ECONNREFUSED 10.0.0.12:5432', 'connect ECONNREFUSED <ip>:<port>'],
    ['fetch http://localhost:3000/api/items failed', 'fetch http://localhost:<port>/api/items failed'],
    ["cannot read '/tmp/run-42/out.json'", "cannot read '<path>'"],
    ['C:\\Users\\ci\\AppData\\Local\\Temp\\x.txt is locked', '<path> is locked'],
    ['parse error at app.ts:12:5', 'parse error at app.ts:<line>:<col>'],
    [
      'discounted total ==> expected: <180> but was: <190>',
      'discounted total ==> expected: <<n>> but was: <<n>>',
    ],
    [
      'line one\n\n  line two  \nline three\nline four\nline five',
      'line one\nline two\nline three\nline four',
    ],
  ])('when the message is %j, then it reads %j', (raw, normalised) => {
    expect(normaliseMessage(raw)).toBe(normalised);
  });

  it('when 500 and 503 fail the same request, then they are two signatures', () => {
    expect(errorSignature({ message: 'Request failed with status code 500' }).id).not.toBe(
      errorSignature({ message: 'Request failed with status code 503' }).id,
    );
  });
});
