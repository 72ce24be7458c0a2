import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, isProcessAlive } from '@verdict/platform';

/**
 * One embedded process per data folder. PGlite is a database in the files of one process: a second
 * process opening the same folder keeps its own copy of the pages and overwrites the first one's writes
 * (two users with one e-mail, a run counted twice). The first process writes its pid to `verdict.pid`;
 * another that finds the file refuses to start while that process lives, and takes a file left behind by
 * one that died (or whose pid now belongs to a program that is not Node).
 */
export const LOCK_FILE = 'verdict.pid';

export interface DataDirLock {
  /** Removes the lock file if it is still this process's. */
  release(): void;
}

/**
 * Whether the process with this pid could be a Verdict process: alive, and (where /proc tells) running
 * Node. After a crash the pid in the file may have gone to another program, which must not block the start.
 */
function mayHold(pid: number): boolean {
  if (!isProcessAlive(pid) || isZombie(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('node');
  } catch {
    return true;
  }
}

/**
 * Whether the process has exited and only its entry is left for its parent to collect (a zombie): it
 * holds no file. Right after a `kill -9` the pid answers as alive until it is collected, and an orphan
 * whose new parent never collects it (a container's init that does not reap) stays so.
 */
function isZombie(pid: number): boolean {
  try {
    // `pid (comm) S …`: the state follows the command name, which may itself hold spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

function holderOf(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the data folder for this process, or throws a ConfigError naming the process that holds it.
 *
 * @example const lock = lockDataDir(config.dataDir); process.on('exit', () => lock.release());
 */
export function lockDataDir(dataDir: string, pid: number = process.pid): DataDirLock {
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 1; ; attempt += 1) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return {
        release() {
          if (holderOf(file) === pid) unlinkSync(file);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
      const holder = holderOf(file);
      if (holder !== null && holder !== pid && mayHold(holder)) {
        throw new ConfigError([
          `VERDICT_DATA_DIR: ${dataDir} is in use by another Verdict process (pid ${holder}); ` +
            `stop it or choose another folder (if no Verdict runs, delete ${file})`,
        ]);
      }
      // Left behind by a process that is gone (or unreadable, half written): take it over.
      unlinkSync(file);
    }
  }
}
