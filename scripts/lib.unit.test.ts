import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// `npm start` runs run.cjs under `sh -c`; a supervisor that stops npm kills that shell, not run.cjs.
describe('watchParent', () => {
  it('when the parent process exits, then the child is told, and can stop what it runs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-watch-'));
    const child = path.join(dir, 'child.cjs');
    writeFileSync(
      child,
      `const { watchParent } = require(${JSON.stringify(path.resolve(__dirname, 'lib.cjs'))});
       watchParent(() => { process.stdout.write('gone\\n'); process.exit(0); }, 50);
       process.stdout.write('ready\\n');
       setTimeout(() => process.exit(3), 20000);`,
    );
    // `; true` keeps the shell waiting as the parent, rather than replacing itself with node.
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${child}"; true`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    const waiting: { text: string; resolve: () => void }[] = [];
    shell.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const wait of waiting) if (output.includes(wait.text)) wait.resolve();
    });
    const saw = (text: string) =>
      new Promise<void>((resolve) => {
        if (output.includes(text)) resolve();
        else waiting.push({ text, resolve });
      });
    await saw('ready');
    shell.kill('SIGKILL');
    await saw('gone');
    expect(output).toBe('ready\ngone\n');
  });
});
