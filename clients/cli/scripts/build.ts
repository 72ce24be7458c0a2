// Builds @verdict/cli into dist/ as CommonJS for Node 18 and newer: the `verdict` bin (main.js) and the
// library entry (index.js, the commands as functions). Its dependencies stay imports, installed beside it.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'tsup';

const root = path.resolve(__dirname, '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

async function main(): Promise<void> {
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  await build({
    entry: { main: path.join(root, 'src', 'main.ts'), index: path.join(root, 'src', 'index.ts') },
    outDir: path.join(root, 'dist'),
    format: ['cjs'],
    target: 'node18',
    platform: 'node',
    dts: { entry: { index: path.join(root, 'src', 'index.ts') } },
    tsconfig: path.join(root, 'tsconfig.build.json'),
    external: ['@verdict/client', 'tinyglobby'],
    define: { __VERSION__: JSON.stringify(version) },
    sourcemap: true,
    clean: false,
    splitting: false,
    silent: true,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
