// Builds @verdict/jest-reporter into dist/: CommonJS (Jest loads reporters with require), ESM,
// and their declarations. @verdict/client stays an import: they are installed beside it.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'tsup';

const root = path.resolve(__dirname, '..');

async function main(): Promise<void> {
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  await build({
    entry: { index: path.join(root, 'src', 'index.ts') },
    outDir: path.join(root, 'dist'),
    format: ['cjs', 'esm'],
    // Node 18 is the oldest Node the package supports.
    target: 'node18',
    platform: 'node',
    dts: true,
    tsconfig: path.join(root, 'tsconfig.build.json'),
    external: ['@verdict/client'],
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
