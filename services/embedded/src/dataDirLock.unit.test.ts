import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@verdict/platform';
import { LOCK_FILE, lockDataDir } from './dataDirLock';

const folder = () => mkdtempSync(path.join(tmpdir(), 'verdict-lock-'));
/** A pid no process has: above the kernel's maximum. */
const GONE = 4_194_305;

describe('lockDataDir', () => {
  it('when the folder is free, then this process takes it and releasing frees it', () => {
    const dir = folder();
    const lock = lockDataDir(dir);
    expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it('when a living Node process holds the folder, then starting is refused, naming the folder and the pid', async () => {
    const dir = folder();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => holder.once('spawn', resolve));
      writeFileSync(path.join(dir, LOCK_FILE), `${holder.pid}\n`);
      expect(() => lockDataDir(dir)).toThrow(ConfigError);
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`VERDICT_DATA_DIR: .* in use .*pid ${holder.pid}`));
      expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(holder.pid));
    } finally {
      holder.kill();
    }
  });

  it('when the process that held the folder is gone, then its lock is taken over', () => {
    const dir = folder();
    writeFileSync(path.join(dir, LOCK_FILE), `${GONE}\n`);
    lockDataDir(dir).release();
    writeFileSync(path.join(dir, LOCK_FILE), 'not a pid');
    const lock = lockDataDir(dir);
    expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('when the Node process that held the folder has exited but was not yet collected by its parent (a zombie, as right after a kill -9), then its lock is taken over', async () => {
    const dir = folder();
    // sh starts node in the background and becomes `sleep`, which never collects it: node exits a zombie.
    const parent = spawn('sh', ['-c', `"${process.execPath}" -e 0 & echo $!; exec sleep 30`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const zombie = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (chunk) => resolve(String(chunk)))),
      );
      const stateOf = () => {
        const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
        return { comm: /\((.*)\)/.exec(stat)?.[1], state: stat.slice(stat.lastIndexOf(')') + 2)[0] };
      };
      for (let waited = 0; stateOf().state !== 'Z' && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stateOf()).toEqual({ comm: 'node', state: 'Z' });
      writeFileSync(path.join(dir, LOCK_FILE), `${zombie}\n`);
      const lock = lockDataDir(dir);
      expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
      lock.release();
    } finally {
      parent.kill();
    }
  });

  it('when the pid in the lock now belongs to a program that is not Node, then the lock is taken over', async () => {
    const dir = folder();
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => other.once('spawn', resolve));
      writeFileSync(path.join(dir, LOCK_FILE), `${other.pid}\n`);
      const lock = lockDataDir(dir);
      expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
      lock.release();
    } finally {
      other.kill();
    }
  });

  it('when another process took the folder over, then releasing leaves its lock alone', () => {
    const dir = folder();
    const lock = lockDataDir(dir);
    writeFileSync(path.join(dir, LOCK_FILE), `${process.ppid}\n`);
    lock.release();
    expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.ppid));
  });
});
