import { flattenTree, possibleParents, suiteTree, type FlatSuite } from './suiteTree';

const suite = (id: string, name: string, parentId: string | null = null): FlatSuite => ({
  _id: id,
  name,
  parentId,
  caseCount: 0,
});

describe('suiteTree', () => {
  const suites = [
    suite('c', 'Checkout'),
    suite('p', 'Payments', 'c'),
    suite('a', 'Accounts'),
    suite('r', 'Refunds', 'p'),
    suite('o', 'Orphan', 'gone'),
  ];

  it('when suites come flat, then they nest under their parents, sorted by name, with their depth', () => {
    const flat = flattenTree(suiteTree(suites)).map((node) => `${node.depth}:${node.suite.name}`);
    expect(flat).toEqual(['0:Accounts', '0:Checkout', '1:Payments', '2:Refunds', '0:Orphan']);
  });

  it('when a suite moves, then neither itself nor its descendants are offered as its new parent', () => {
    expect(possibleParents(suites, 'c').map((s) => s._id)).toEqual(['a', 'o']);
    expect(possibleParents(suites, 'r').map((s) => s._id)).toEqual(['c', 'p', 'a', 'o']);
  });
});
