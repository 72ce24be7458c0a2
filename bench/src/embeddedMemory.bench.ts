import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchRow } from './table';
import { sleep } from './table';

const root = path.resolve(__dirname, '../..');

function residentMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** The embedded process as `npm start` runs it, idle after start-up: its resident memory. */
export async function benchEmbeddedMemory(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-bench-'));
  const port = 18000 + Math.floor(Math.random() * 1000);
  // Exactly what `npm start` runs; the server is the launcher's child process.
  const child = spawn(process.execPath, ['scripts/run.cjs', 'start'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error('embedded process did not become ready in 60 s');
      try {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (response.ok) break;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
    await sleep(5_000);
    // The launcher's child that runs the bundle is the server; nothing else of its may be measured.
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/);
    const server = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('embedded'));
    if (!server) throw new Error('the embedded server process was not found');
    const rss = residentMegabytes(Number(server));
    return [
      {
        name: 'embedded process resident memory, idle',
        unit: 'MB',
        ours: rss,
        baseline: null,
        target: '< 250 MB',
        met: rss < 250,
      },
    ];
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
