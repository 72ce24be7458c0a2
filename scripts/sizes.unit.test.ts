import { readFileSync } from 'node:fs';
import path from 'node:path';
import { functionSizes, sourceFiles } from './measure';

// The sizes issue 30 set for the code people read most: the web app's components stay small enough to read
// in one screen or two, and platform's adapters are operations, not factory closures of hundreds of lines.
const root = path.resolve(__dirname, '..');
const relative = (file: string) => path.relative(root, file);
const sizesUnder = (dir: string) => sourceFiles(path.join(root, dir)).flatMap(functionSizes);
const describeSize = (s: { file: string; line: number; name: string; lines: number }) =>
  `${relative(s.file)}:${s.line} ${s.name} (${s.lines} lines)`;

describe('the size of functions and files', () => {
  it('when web/src is measured, then no function is over 100 lines and at most 15 are over 50', () => {
    const sizes = sizesUnder('web/src');
    expect(sizes.length).toBeGreaterThan(100);
    expect(sizes.filter((s) => s.lines > 100).map(describeSize)).toEqual([]);
    expect(sizes.filter((s) => s.lines > 50).length).toBeLessThanOrEqual(15);
  });

  it('when web/src is measured, then no source file is over 400 lines', () => {
    const long = sourceFiles(path.join(root, 'web/src'))
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').trimEnd().split('\n').length }))
      .filter((f) => f.lines > 400)
      .map((f) => `${relative(f.file)} (${f.lines} lines)`);
    expect(long).toEqual([]);
  });

  it('when platform/src is measured, then no function is over 100 lines', () => {
    const sizes = sizesUnder('platform/src');
    expect(sizes.length).toBeGreaterThan(100);
    expect(sizes.filter((s) => s.lines > 100).map(describeSize)).toEqual([]);
  });
});
