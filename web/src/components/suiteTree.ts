/**
 * The library's suites as a tree: the API lists them flat (each with its parent), the page draws them
 * nested, sorted by name, and offers as new parents only the suites a move would not loop through.
 */
export interface FlatSuite {
  _id: string;
  name: string;
  parentId: string | null;
  caseCount: number;
}

export interface SuiteNode<S extends FlatSuite = FlatSuite> {
  suite: S;
  depth: number;
  children: SuiteNode<S>[];
}

const byName = <S extends FlatSuite>(a: SuiteNode<S>, b: SuiteNode<S>) =>
  a.suite.name.localeCompare(b.suite.name) || a.suite._id.localeCompare(b.suite._id);

/** Roots first; a suite whose parent is not in the list (deleted meanwhile) shows as a root. */
export function suiteTree<S extends FlatSuite>(suites: readonly S[]): SuiteNode<S>[] {
  const nodes = new Map(
    suites.map((suite) => [suite._id, { suite, depth: 0, children: [] } as SuiteNode<S>]),
  );
  const roots: SuiteNode<S>[] = [];
  for (const node of nodes.values()) {
    const parent = node.suite.parentId === null ? undefined : nodes.get(node.suite.parentId);
    (parent ? parent.children : roots).push(node);
  }
  const settle = (level: SuiteNode<S>[], depth: number) => {
    level.sort(byName);
    for (const node of level) {
      node.depth = depth;
      settle(node.children, depth + 1);
    }
  };
  settle(roots, 0);
  return roots;
}

/** The tree in reading order, each node with its depth: what a select or a flat list shows. */
export function flattenTree<S extends FlatSuite>(roots: readonly SuiteNode<S>[]): SuiteNode<S>[] {
  return roots.flatMap((node) => [node, ...flattenTree(node.children)]);
}

/** The suites `suiteId` may move under: every one but itself and its descendants. */
export function possibleParents<S extends FlatSuite>(suites: readonly S[], suiteId: string): S[] {
  const excluded = new Set([suiteId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const suite of suites) {
      if (suite.parentId !== null && excluded.has(suite.parentId) && !excluded.has(suite._id)) {
        excluded.add(suite._id);
        grew = true;
      }
    }
  }
  return suites.filter((suite) => !excluded.has(suite._id));
}
