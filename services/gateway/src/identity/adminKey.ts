/**
 * The admin API's key. A configured key (VERDICT_ADMIN_KEY) wins; otherwise the embedded mode keeps one in
 * its data folder, generated on the first start with mode 0600, so `npm start` needs no setup and the key
 * survives restarts. The launcher prints a generated key once; it is never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { ConfigError, newSecret, UnauthorizedError } from '@verdict/platform';

export const ADMIN_KEY_FILE = 'admin-key';

/** Shorter keys are refused at startup: the admin API creates tokens for every project. */
export const MIN_ADMIN_KEY_LENGTH = 16;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Accepts `Authorization: Bearer <admin key>` only. Both sides are hashed first, so the comparison takes
 * the same time whatever the length or the content of the key offered.
 *
 * @example router.use(requireAdminKey(config.adminKey));
 */
export function requireAdminKey(adminKey: string): RequestHandler {
  if (adminKey.length < MIN_ADMIN_KEY_LENGTH) {
    throw new TypeError(`The admin key must have at least ${MIN_ADMIN_KEY_LENGTH} characters`);
  }
  const expected = digest(adminKey);
  return (req, _res, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '');
    const offered = digest(match?.[1] ?? '');
    if (!match || !timingSafeEqual(offered, expected)) {
      throw new UnauthorizedError('A valid admin key is required: Authorization: Bearer <admin key>');
    }
    next();
  };
}

export interface ResolvedAdminKey {
  key: string;
  /** True only when this call created the key: the caller prints it, once. */
  generated: boolean;
  /** Where the key came from; with `file`, its path. */
  source: 'configured' | 'file' | 'generated';
  path?: string;
}

function checkedKey(key: string, origin: string): string {
  if (key.length < MIN_ADMIN_KEY_LENGTH || /\s/.test(key)) {
    throw new ConfigError([
      `${origin}: the admin key needs at least ${MIN_ADMIN_KEY_LENGTH} characters and no spaces`,
    ]);
  }
  return key;
}

async function readKeyFile(file: string): Promise<string | null> {
  try {
    return checkedKey((await readFile(file, 'utf8')).trim(), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The configured key, or the one kept in `<dataDir>/admin-key`, or a new 256-bit key written there.
 *
 * @example const { key, generated } = await resolveAdminKey({ configured: process.env.VERDICT_ADMIN_KEY, dataDir });
 */
export async function resolveAdminKey(options: {
  configured?: string;
  dataDir: string;
}): Promise<ResolvedAdminKey> {
  if (options.configured !== undefined && options.configured !== '') {
    return {
      key: checkedKey(options.configured, 'VERDICT_ADMIN_KEY'),
      generated: false,
      source: 'configured',
    };
  }
  const file = path.join(options.dataDir, ADMIN_KEY_FILE);
  const kept = await readKeyFile(file);
  if (kept !== null) return { key: kept, generated: false, source: 'file', path: file };
  await mkdir(options.dataDir, { recursive: true });
  const key = newSecret(32);
  if (!(await createOnce(file, `${key}\n`))) {
    const written = await readKeyFile(file);
    if (written === null) throw new Error(`${file} vanished while it was being created`);
    return { key: written, generated: false, source: 'file', path: file };
  }
  return { key, generated: true, source: 'generated', path: file };
}

/**
 * Creates `file` with `content` and mode 0600 in one step, or returns false when it already exists. The
 * content goes to a private temporary file first and is then hard-linked into place: a process starting
 * at the same moment on the same folder sees either no key or the whole key, never a partial one.
 */
async function createOnce(file: string, content: string): Promise<boolean> {
  const temporary = `${file}.${process.pid}.${newSecret(6)}.tmp`;
  await writeFile(temporary, content, { mode: 0o600, flag: 'wx' });
  try {
    // The mode given to writeFile is filtered by the umask; make sure of 0600.
    await chmod(temporary, 0o600);
    await link(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary);
  }
}
