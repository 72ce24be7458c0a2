/**
 * Function sizes, measured with the TypeScript compiler: every function declaration, function expression,
 * arrow function, method, constructor and accessor, from its first to its last line (a nested function
 * counts in its parent's lines too). Tests (`*.test.ts`, `*.test.tsx`) are left out.
 *
 * @example npx tsx scripts/measure.ts platform/src --over 100   # lists the functions over 100 lines, longest first
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** The source files under a folder (or the file itself), tests left out. */
export function sourceFiles(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const full = path.join(target, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    const isSource = /\.tsx?$/.test(name) && !name.endsWith('.d.ts');
    return isSource && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

/** The name a reader would look for: the declaration's, the variable's or the property's it is bound to. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function of one file with its size in lines. */
export function functionSizes(file: string): FunctionSize[] {
  const text = readFileSync(file, 'utf8');
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const sizes: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push({ file, name: nameOf(node, source), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}

function main(args: string[]): void {
  const overIndex = args.indexOf('--over');
  const over = overIndex >= 0 ? Number(args[overIndex + 1]) : 100;
  const targets = args.filter((arg, index) => index !== overIndex && index !== overIndex + 1);
  const all = (targets.length > 0 ? targets : ['.']).flatMap(sourceFiles).flatMap(functionSizes);
  const large = all.filter((size) => size.lines > over).sort((a, b) => b.lines - a.lines);
  for (const size of large)
    console.log(`${String(size.lines).padStart(5)}  ${size.file}:${size.line}  ${size.name}`);
  console.log(`${large.length} of ${all.length} functions over ${over} lines`);
}

if (require.main === module) main(process.argv.slice(2));
