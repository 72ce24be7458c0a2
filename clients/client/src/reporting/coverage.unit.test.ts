import path from 'node:path';
import { coverageFormatOf, parseCobertura, parseLcov, readCoverage } from './coverage';

// Reports written by the real tools (clients/cli/fixtures/README.md says how), read as the CLI reads them.
const fixtures = path.join(__dirname, '..', '..', '..', 'cli', 'fixtures', 'coverage');
const JS = '/tmp/i20-cov/js';
const read = (name: string, root: string) => readCoverage(path.join(fixtures, name), { root });

describe('readCoverage on real reports', () => {
  it("when c8 writes its Istanbul summary, then all four metrics and each file come as c8's total says", async () => {
    const coverage = await read('c8-coverage-summary.json', JS);
    expect(coverage).toMatchObject({
      lines: { total: 21, covered: 13 },
      statements: { total: 21, covered: 13 },
      functions: { total: 4, covered: 2 },
      branches: { total: 6, covered: 5 },
    });
    expect(coverage.files?.map((file) => file.path)).toEqual(['src/cart.js', 'src/receipt.js']);
  });

  it('when c8 writes lcov for the same run, then lines, functions and branches agree with its summary and there are no statements', async () => {
    const summary = await read('c8-coverage-summary.json', JS);
    const lcov = await read('c8-lcov.info', JS);
    expect(lcov.statements).toBeUndefined();
    expect({ lines: lcov.lines, functions: lcov.functions, branches: lcov.branches }).toEqual({
      lines: summary.lines,
      functions: summary.functions,
      branches: summary.branches,
    });
    expect(lcov.files?.[0]).toEqual({
      path: 'src/cart.js',
      lines: { total: 12, covered: 7 },
      functions: { total: 2, covered: 1 },
      branches: { total: 3, covered: 2 },
    });
  });

  it('when c8 writes Cobertura for the same run, then it holds lines and branches only, agreeing with its summary', async () => {
    const summary = await read('c8-coverage-summary.json', JS);
    const cobertura = await read('c8-cobertura.xml', JS);
    expect(cobertura).toEqual({
      lines: summary.lines,
      branches: summary.branches,
      files: [
        { path: 'src/cart.js', lines: { total: 12, covered: 7 }, branches: { total: 3, covered: 2 } },
        { path: 'src/receipt.js', lines: { total: 9, covered: 6 }, branches: { total: 3, covered: 3 } },
      ],
    });
  });

  it('when nyc writes its summary and lcov, then both say the same of lines, functions and branches', async () => {
    const summary = await read('nyc-coverage-summary.json', JS);
    expect(summary).toMatchObject({
      lines: { total: 8, covered: 5 },
      statements: { total: 9, covered: 6 },
      functions: { total: 5, covered: 3 },
      branches: { total: 2, covered: 1 },
    });
    const lcov = await read('nyc-lcov.info', JS);
    expect([lcov.lines, lcov.functions, lcov.branches]).toEqual([
      summary.lines,
      summary.functions,
      summary.branches,
    ]);
  });

  it('when pytest-cov writes Cobertura XML, then its file is named from its <source> and an empty module is left out', async () => {
    expect(await read('coveragepy-coverage.xml', '/tmp/i20-cov/py')).toEqual({
      lines: { total: 6, covered: 4 },
      branches: { total: 2, covered: 1 },
      files: [{ path: 'shop/cart.py', lines: { total: 6, covered: 4 }, branches: { total: 2, covered: 1 } }],
    });
  });

  it('when pytest-cov writes lcov, then lines, functions and branches come (coverage.py names its branches in words)', async () => {
    expect(await read('coveragepy-lcov.info', '/tmp/i20-cov/py')).toEqual({
      lines: { total: 6, covered: 4 },
      functions: { total: 2, covered: 1 },
      branches: { total: 2, covered: 1 },
      files: [
        {
          path: 'shop/cart.py',
          lines: { total: 6, covered: 4 },
          functions: { total: 2, covered: 1 },
          branches: { total: 2, covered: 1 },
        },
      ],
    });
  });

  it('when gcovr writes Cobertura for C, then the totals of its root element are taken', async () => {
    expect(await read('gcovr-cobertura.xml', '/tmp/i20-cov/c')).toEqual({
      lines: { total: 8, covered: 6 },
      branches: { total: 2, covered: 1 },
      files: [{ path: 'cart.c', lines: { total: 8, covered: 6 }, branches: { total: 2, covered: 1 } }],
    });
  });

  it('when a path lies outside the root, then it is kept as the report wrote it', async () => {
    const coverage = await read('c8-coverage-summary.json', '/somewhere/else');
    expect(coverage.files?.[0]?.path).toBe('/tmp/i20-cov/js/src/cart.js');
  });
});

describe('the formats by hand', () => {
  it('when an lcov record has no LF/LH summary lines, then lines are counted from its DA lines', () => {
    expect(parseLcov('SF:a.js\nDA:1,1\nDA:2,0\nDA:3,4\nend_of_record\n', '/')).toEqual({
      lines: { total: 3, covered: 2 },
      files: [{ path: 'a.js', lines: { total: 3, covered: 2 } }],
    });
  });

  it('when Cobertura has no totals on its root, then they are summed from its files', () => {
    const xml =
      '<coverage><packages><package><classes><class filename="a.py"><lines>' +
      '<line number="1" hits="1"/><line number="2" hits="0" branch="true" condition-coverage="50% (1/2)"/>' +
      '</lines></class></classes></package></packages></coverage>';
    expect(parseCobertura(xml, '/')).toEqual({
      lines: { total: 2, covered: 1 },
      branches: { total: 2, covered: 1 },
      files: [{ path: 'a.py', lines: { total: 2, covered: 1 }, branches: { total: 2, covered: 1 } }],
    });
  });

  it('when a file is none of the three formats, or measures nothing, then it is refused with a reason', async () => {
    expect(coverageFormatOf('<testsuites/>')).toBeUndefined();
    expect(coverageFormatOf('hello')).toBeUndefined();
    expect(() => parseLcov('TN:\n', '/')).toThrow('not an lcov tracefile');
    expect(() => parseLcov('SF:a.js\nend_of_record\n', '/')).toThrow('measures nothing');
    await expect(readCoverage(path.join(fixtures, '..', 'README.md'))).rejects.toThrow(
      /README\.md: not a coverage report/,
    );
  });
});
