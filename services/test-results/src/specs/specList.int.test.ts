import { testDatabases } from '@verdict/platform/testing/databases';
import { PROJECT, resultOf } from '../runs/specEvents';
import { sliceUnderTest } from '../testing';
import { listSpecs, specListProjection } from './specList';

describe.each(testDatabases())('the spec list on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'specList', specListProjection);

  it('when tests of two files run, then each file counts its test cases once, whatever their attempts and platforms', async () => {
    await slice
      .spec()
      .given([resultOf('pays', 0, 'passed'), resultOf('pays', 1, 'passed')])
      .when([
        resultOf('pays', 0, 'passed', { project: 'firefox' }),
        resultOf('breaks', 0, 'failed'),
        resultOf('logs in', 0, 'passed', { file: 'tests/login.spec.ts' }),
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const { items, total } = await listSpecs(slice.read(schema), PROJECT, { page: 1, limit: 20 });
        expect(total).toBe(2);
        expect(items.map((spec) => [spec.file, spec.testCount])).toEqual([
          ['tests/cart.spec.ts', 2],
          ['tests/login.spec.ts', 1],
        ]);
      });
  });
});
