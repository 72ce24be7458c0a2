import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The dependency rules of STYLE.md, checked on the source itself: services never import each other (the
// embedded launcher is the one composition root allowed to), contracts imports no other package, only
// platform imports infrastructure clients, a client package (published alone) imports only what it
// declares, and no module takes part in an import cycle.
const root = path.resolve(__dirname, '..');
const INFRASTRUCTURE = ['kafkajs', 'pg', '@electric-sql/pglite', 'redis'];

interface Module {
  file: string;
  owner: string;
  imports: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

function ownerOf(file: string): string {
  const relative = path.relative(root, file).split(path.sep);
  return relative[0] === 'services' || relative[0] === 'clients'
    ? `${relative[0]}/${relative[1]}`
    : (relative[0] ?? '');
}

const clientPackages = () =>
  existsSync(path.join(root, 'clients'))
    ? readdirSync(path.join(root, 'clients')).map((c) => `clients/${c}`)
    : [];

function modules(): Module[] {
  const dirs = [
    'contracts/src',
    'platform/src',
    ...readdirSync(path.join(root, 'services')).map((s) => `services/${s}/src`),
    ...clientPackages().map((c) => `${c}/src`),
  ];
  return dirs.flatMap((dir) =>
    sourceFiles(path.join(root, dir)).map((file) => {
      const text = readFileSync(file, 'utf8');
      const imports = [
        ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g),
      ].map((m) => (m[1] ?? m[2]) as string);
      return { file, owner: ownerOf(file), imports };
    }),
  );
}

/** The folder of each client package by its package name (`@verdict/mcp` → `clients/mcp`). */
const clientPackageNames = new Map(
  clientPackages().map((dir) => [
    (JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { name: string }).name,
    dir,
  ]),
);

const packageOf = (specifier: string): string | null => {
  const match = /^@verdict\/([^/]+)/.exec(specifier);
  if (!match) return null;
  const client = clientPackageNames.get(match[0]);
  if (client !== undefined) return client;
  const name = match[1] as string;
  return name === 'contracts' || name === 'platform' ? name : `services/${name}`;
};

function resolveRelative(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // try the next form
    }
  }
  return null;
}

const all = modules();

describe('the dependency rules', () => {
  it('when the source is read, then there are modules of every package to check', () => {
    const owners = new Set(all.map((m) => m.owner));
    expect([...owners]).toEqual(
      expect.arrayContaining(['contracts', 'platform', 'services/gateway', 'services/embedded']),
    );
  });

  it('when a service imports a package, then it is contracts, platform or a published client package (only the embedded launcher composes services)', () => {
    const violations = all
      .filter((m) => m.owner.startsWith('services/') && m.owner !== 'services/embedded')
      .flatMap((m) =>
        m.imports
          .map(packageOf)
          .filter(
            (p): p is string =>
              p !== null &&
              p !== 'contracts' &&
              p !== 'platform' &&
              !p.startsWith('clients/') &&
              p !== m.owner,
          )
          .map((p) => `${path.relative(root, m.file)} imports ${p}`),
      );
    expect(violations).toEqual([]);
  });

  it('when contracts imports anything, then it is not another Verdict package', () => {
    const violations = all
      .filter((m) => m.owner === 'contracts')
      .flatMap((m) =>
        m.imports
          .filter((i) => packageOf(i) !== null)
          .map((i) => `${path.relative(root, m.file)} imports ${i}`),
      );
    expect(violations).toEqual([]);
  });

  it('when a client package’s source imports a package, then it is a dependency it declares, its host (a peer) or Node (users install it alone)', () => {
    const clients = clientPackages();
    expect(clients).toContain('clients/client');
    const violations = all
      .filter((m) => clients.includes(m.owner) && !/\.test\.ts$|\/testing\.ts$/.test(m.file))
      .flatMap((m) => {
        const manifest = JSON.parse(readFileSync(path.join(root, m.owner, 'package.json'), 'utf8')) as {
          name: string;
          dependencies?: Record<string, string>;
          peerDependencies?: Record<string, string>;
        };
        // Its own name (a subpath entry uses the main one), what it depends on, and the host it plugs into.
        const declared = [
          manifest.name,
          ...Object.keys(manifest.dependencies ?? {}),
          ...Object.keys(manifest.peerDependencies ?? {}),
        ];
        return m.imports
          .filter((i) => !i.startsWith('.') && !i.startsWith('node:'))
          .filter((i) => !declared.some((d) => i === d || i.startsWith(`${d}/`)))
          .map((i) => `${path.relative(root, m.file)} imports ${i}`);
      });
    expect(violations).toEqual([]);
  });

  it('when an infrastructure client is imported, then it is from platform', () => {
    const violations = all
      .filter((m) => m.owner !== 'platform')
      .flatMap((m) =>
        m.imports
          .filter((i) => INFRASTRUCTURE.includes(i))
          .map((i) => `${path.relative(root, m.file)} imports ${i}`),
      );
    expect(violations).toEqual([]);
  });

  it('when modules import each other, then no import cycle exists', () => {
    const graph = new Map(
      all.map((m) => [
        m.file,
        m.imports.map((i) => resolveRelative(m.file, i)).filter((f): f is string => f !== null),
      ]),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push(
          [...stack.slice(stack.indexOf(file)), file].map((f) => path.relative(root, f)).join(' → '),
        );
        return;
      }
      state.set(file, 'visiting');
      stack.push(file);
      for (const next of graph.get(file) ?? []) visit(next);
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file);
    expect(cycles).toEqual([]);
  });
});
