import type { ManualSuite } from '../../api/queries';
import { initialParent, ROOT, suiteChangeOf } from './suiteDialogs';

const suite = { _id: 's2', name: 'Cart', parentId: 's1' } as ManualSuite;

describe('the suite dialogs', () => {
  it('when a dialog opens, then its parent is the one asked, the suite’s own, or the top level', () => {
    expect(initialParent({ kind: 'create', parentId: 's1' })).toBe('s1');
    expect(initialParent({ kind: 'create', parentId: null })).toBe(ROOT);
    expect(initialParent({ kind: 'move', suite })).toBe('s1');
    expect(initialParent({ kind: 'rename', suite })).toBe(ROOT);
  });

  it('when submitted, then each dialog sends its change, the top level as no parent', () => {
    expect(suiteChangeOf({ kind: 'create', parentId: null }, 'Pay', ROOT)).toEqual({
      kind: 'create',
      name: 'Pay',
      parentId: null,
    });
    expect(suiteChangeOf({ kind: 'rename', suite }, 'Basket', ROOT)).toEqual({
      kind: 'rename',
      suiteId: 's2',
      name: 'Basket',
    });
    expect(suiteChangeOf({ kind: 'move', suite }, '', 's9')).toEqual({
      kind: 'move',
      suiteId: 's2',
      parentId: 's9',
    });
    expect(suiteChangeOf({ kind: 'delete', suite }, '', ROOT)).toEqual({ kind: 'delete', suiteId: 's2' });
  });
});
