// The import graph of the whole repository, read by TypeScript itself: every source file (TypeScript, TSX,
// CommonJS and ES modules) outside build outputs, each with the repository files it imports, statically,
// by `import type`, by `export … from`, by `import()` (a lazy route counts) or by `require()`. Resolved as
// the compilers resolve them (`./x` to x.ts, x.tsx or x/index.ts(x); `@verdict/platform/testing` through
// the workspace package's exports), so a cycle across packages is seen too.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Folders that hold no source of ours: dependencies, build outputs, test reports, local state. */
const SKIPPED = new Set([
  'node_modules',
  'dist',
  'generated',
  'coverage',
  'test-results',
  'playwright-report',
]);
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowJs: true,
  resolveJsonModule: true,
  jsx: ts.JsxEmit.ReactJSX,
};

/** Every source file under `dir`, dot-folders (.git, .infra, .verdict) and SKIPPED ones left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory())
        return entry.name.startsWith('.') || SKIPPED.has(entry.name) ? [] : sourceFiles(full);
      return SOURCE.test(entry.name) ? [full] : [];
    });
}

export interface ImportGraph {
  /** Each file with the specifiers it imports, as written. */
  specifiers: Map<string, string[]>;
  /** Each file with the files of the graph it imports. */
  edges: Map<string, string[]>;
}

/** The import graph of the files under `root` (absolute paths). */
export function importGraph(root: string): ImportGraph {
  const files = sourceFiles(root);
  const known = new Set(files);
  const specifiers = new Map<string, string[]>();
  const edges = new Map<string, string[]>();
  const resolved = new Map<string, string | null>();
  for (const file of files) {
    const imported = ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((f) => f.fileName);
    specifiers.set(file, imported);
    const targets = imported
      .map((specifier) => {
        // What a specifier names depends only on the folder it is written in.
        const key = `${path.dirname(file)}\0${specifier}`;
        if (!resolved.has(key)) {
          const module = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
          resolved.set(key, module ? path.resolve(module.resolvedFileName) : null);
        }
        return resolved.get(key) ?? null;
      })
      .filter((target): target is string => target !== null && known.has(target));
    edges.set(file, [...new Set(targets)]);
  }
  return { specifiers, edges };
}

/**
 * The import cycles of a graph: one per group of files that reach each other (a strongly connected
 * component, Tarjan's algorithm), each given as one shortest path around it, `[a, b, …, a]`, with the files
 * of its group (sorted). A file that imports itself is a cycle of one.
 */
export function importCycles(edges: Map<string, string[]>): { path: string[]; files: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (edges.get(file) ?? []).includes(file)) groups.push(group);
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return groups.map((group) => {
    const files = [...group].sort();
    return { path: shortestCycle(edges, new Set(group), files[0] as string), files };
  });
}

/** The shortest path from `start` back to itself inside `group` (breadth first). */
function shortestCycle(edges: Map<string, string[]>, group: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const next of edges.get(file) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const cycle = [start];
        for (let at = file; at !== start; at = previous.get(at) as string) cycle.unshift(at);
        return [start, ...cycle];
      }
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}
