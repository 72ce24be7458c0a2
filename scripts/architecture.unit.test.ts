import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importCycles, importGraph } from './importGraph';

// The dependency rules of STYLE.md, checked on the source itself: services never import each other (the
// embedded launcher is the one composition root allowed to), contracts imports no other package, only
// platform imports infrastructure clients, a client package (published alone) imports only what it
// declares, and no file of the repository (web app, tests, scripts included) takes part in an import cycle.
const root = path.resolve(__dirname, '..');
const INFRASTRUCTURE = ['kafkajs', 'pg', '@electric-sql/pglite', 'redis'];

interface Module {
  file: string;
  owner: string;
  imports: string[];
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

const graph = importGraph(root);

/** The source of the packages the dependency rules are about (the cycle rule reads the whole graph). */
function modules(): Module[] {
  const dirs = [
    'contracts/src',
    'platform/src',
    ...readdirSync(path.join(root, 'services')).map((s) => `services/${s}/src`),
    ...clientPackages().map((c) => `${c}/src`),
  ].map((dir) => path.join(root, dir) + path.sep);
  return [...graph.specifiers]
    .filter(([file]) => file.endsWith('.ts') && dirs.some((dir) => file.startsWith(dir)))
    .map(([file, imports]) => ({ file, owner: ownerOf(file), imports }));
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

  it('when a client package’s source imports a package, then it is a dependency it declares, its host (a peer), Node, or a dependency-free module its build bundles (users install it alone)', () => {
    const clients = clientPackages();
    expect(clients).toContain('clients/client');
    const violations = all
      .filter((m) => clients.includes(m.owner) && !/\.test\.ts$|\/testing\.ts$/.test(m.file))
      .flatMap((m) => {
        const manifest = JSON.parse(readFileSync(path.join(root, m.owner, 'package.json'), 'utf8')) as {
          name: string;
          dependencies?: Record<string, string>;
          peerDependencies?: Record<string, string>;
          verdictBundles?: string[];
        };
        // Its own name (a subpath entry uses the main one), what it depends on, the host it plugs into, and
        // the modules of this repository its build inlines (`verdictBundles`: the id functions the reporters
        // must compute as the server does; tsup bundles what is not a dependency).
        const declared = [
          manifest.name,
          ...Object.keys(manifest.dependencies ?? {}),
          ...Object.keys(manifest.peerDependencies ?? {}),
        ];
        const bundled = manifest.verdictBundles ?? [];
        return m.imports
          .filter((i) => !i.startsWith('.') && !i.startsWith('node:'))
          .filter((i) => !declared.some((d) => i === d || i.startsWith(`${d}/`)) && !bundled.includes(i))
          .map((i) => `${path.relative(root, m.file)} imports ${i}`);
      });
    expect(violations).toEqual([]);
  });

  it('when a client bundles a module of this repository, then that module imports nothing but Node', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'clients/client/package.json'), 'utf8')) as {
      verdictBundles?: string[];
    };
    const bundled = (manifest.verdictBundles ?? []).map((specifier) =>
      path.join(root, specifier.replace('@verdict/contracts/', 'contracts/src/') + '.ts'),
    );
    expect(bundled.length).toBeGreaterThan(0);
    const violations = bundled.flatMap((file) => {
      const found = all.find((m) => m.file === file);
      if (!found) return [`${path.relative(root, file)} is not in the repository`];
      return found.imports
        .filter((i) => !i.startsWith('node:'))
        .map((i) => `${path.relative(root, file)} imports ${i}`);
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

  it('when webhooks’ subscription slice imports, then never from its delivery slice (delivery reads subscriptions, one way only)', () => {
    const slice = (name: string) => path.join(root, 'services', 'webhooks', 'src', name) + path.sep;
    const violations = [...graph.edges]
      .filter(([file]) => file.startsWith(slice('subscriptions')))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => target.startsWith(slice('delivery')))
          .map((target) => `${path.relative(root, file)} imports ${path.relative(root, target)}`),
      );
    expect(violations).toEqual([]);
  });

  it('when the repository is read, then its graph spans every part and resolves imports as the compilers do', () => {
    const relative = (file: string) => path.relative(root, file);
    const parts = new Set(
      [...graph.edges.keys()].map((f) => relative(f).split(path.sep).slice(0, 2).join('/')),
    );
    expect([...parts]).toEqual(
      expect.arrayContaining([
        'web/src',
        'web/tests',
        'e2e/src',
        'bench/src',
        'scripts/run.cjs',
        'clients/cli',
      ]),
    );
    const importsOf = (file: string) => (graph.edges.get(path.join(root, file)) ?? []).map(relative);
    // A require() of CommonJS, a workspace package through its exports.
    expect(importsOf('scripts/run.cjs')).toContain(path.join('scripts', 'lib.cjs'));
    expect(importsOf('services/gateway/src/main.ts')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^platform\/src\//)]),
    );
  });

  it('when files import each other (import type, export … from and import() included), then no import cycle exists', () => {
    const relative = (file: string) => path.relative(root, file);
    const cycles = importCycles(graph.edges).map(({ path: cycle, files }) =>
      files.length > cycle.length - 1
        ? `${cycle.map(relative).join(' → ')} (one of the cycles among ${files.length} files that reach each other: ${files.map(relative).join(', ')})`
        : cycle.map(relative).join(' → '),
    );
    expect(cycles).toEqual([]);
  });
});

describe('the import cycle finder', () => {
  it('when a file imports another by import type, export … from, import() or require(), then that is an edge, resolved as the compilers resolve it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'verdict-import-graph-'));
    try {
      const files: Record<string, string> = {
        'router.tsx':
          "const Page = lazy(() => import('./pages/runs'));\nexport { runsRoute } from './routes';",
        'routes.ts': "import type { Page } from './pages/runs';",
        'pages/runs/index.tsx': "import { runsRoute } from '../../router';",
        'launcher.cjs': "const lib = require('./lib.cjs');",
        'lib.cjs': '',
        'node_modules/dep/index.ts': "import '../../router';",
      };
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      }
      const { edges } = importGraph(dir);
      const named = new Map(
        [...edges].map(([f, to]) => [path.relative(dir, f), to.map((t) => path.relative(dir, t))]),
      );
      expect(Object.fromEntries(named)).toEqual({
        'launcher.cjs': ['lib.cjs'],
        'lib.cjs': [],
        'pages/runs/index.tsx': ['router.tsx'],
        'router.tsx': ['pages/runs/index.tsx', 'routes.ts'],
        'routes.ts': ['pages/runs/index.tsx'],
      });
      expect(importCycles(edges).map((c) => c.files.map((f) => path.relative(dir, f)))).toEqual([
        ['pages/runs/index.tsx', 'router.tsx', 'routes.ts'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const edges = (pairs: Record<string, string[]>) => new Map(Object.entries(pairs));

  it('when files import one another in a ring, then the cycle is given as its path, back to its start', () => {
    expect(importCycles(edges({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([
      { path: ['a', 'b', 'c', 'a'], files: ['a', 'b', 'c'] },
    ]);
  });

  it('when several rings share files, then their group is reported once with its shortest cycle and its files', () => {
    expect(
      importCycles(
        edges({ router: ['runs', 'run', 'test'], runs: ['router'], run: ['test'], test: ['router'] }),
      ),
    ).toEqual([{ path: ['router', 'runs', 'router'], files: ['router', 'run', 'runs', 'test'] }]);
  });

  it('when a file imports itself, then that is a cycle; when imports only go one way, then there is none', () => {
    expect(importCycles(edges({ a: ['a'] }))).toEqual([{ path: ['a', 'a'], files: ['a'] }]);
    expect(importCycles(edges({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
  });
});
