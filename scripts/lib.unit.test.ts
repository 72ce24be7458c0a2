import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
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

// A service started with the launcher pipe stops when the launcher is gone, even when it was SIGKILLed.
describe('withLauncherPipe and whenLauncherGone', () => {
  it('when the launcher holding the pipe is killed with SIGKILL, then its child is told', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-launcher-'));
    const lib = JSON.stringify(path.resolve(__dirname, 'lib.cjs'));
    const child = path.join(dir, 'child.cjs');
    writeFileSync(
      child,
      `const { whenLauncherGone } = require(${lib});
       whenLauncherGone(() => { require('fs').writeFileSync(${JSON.stringify(path.join(dir, 'gone'))}, 'gone'); process.exit(0); });
       process.stdout.write('ready\\n');
       setTimeout(() => process.exit(3), 20000);`,
    );
    const launcher = path.join(dir, 'launcher.cjs');
    writeFileSync(
      launcher,
      `const { spawn } = require('child_process');
       const { withLauncherPipe } = require(${lib});
       const child = spawn(process.execPath, [${JSON.stringify(child)}], withLauncherPipe({}, ['ignore', 'inherit', 'inherit']));
       process.stdout.write('child ' + child.pid + '\\n');
       setTimeout(() => {}, 20000);`,
    );
    const parent = spawn(process.execPath, [launcher], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    await new Promise<void>((resolve) =>
      parent.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('ready')) resolve();
      }),
    );
    const childPid = Number(/child (\d+)/.exec(output)?.[1]);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (!existsSync(path.join(dir, 'gone')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(existsSync(path.join(dir, 'gone'))).toBe(true);
    expect(childPid).toBeGreaterThan(0);
  });
});
