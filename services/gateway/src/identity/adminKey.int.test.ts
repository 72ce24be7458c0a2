import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN_KEY_FILE, resolveAdminKey } from './adminKey';

describe('admin key', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = path.join(await mkdtemp(path.join(tmpdir(), 'verdict-admin-key-')), 'data');
  });
  afterEach(async () => {
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('when none is configured or kept, then a high-entropy key is generated, written with mode 0600 and reported as generated', async () => {
    const resolved = await resolveAdminKey({ dataDir });
    expect(resolved).toEqual({
      key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      generated: true,
      source: 'generated',
      path: path.join(dataDir, ADMIN_KEY_FILE),
    });
    const file = path.join(dataDir, ADMIN_KEY_FILE);
    expect((await readFile(file, 'utf8')).trim()).toBe(resolved.key);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dataDir)).toEqual([ADMIN_KEY_FILE]);
  });

  it('when a key is kept in the data folder, then the next start reads it and does not report it as generated', async () => {
    const first = await resolveAdminKey({ dataDir });
    const second = await resolveAdminKey({ dataDir });
    expect(second).toEqual({ key: first.key, generated: false, source: 'file', path: first.path });
  });

  it('when several processes start at once on a fresh folder, then they all get the same key and one reports it generated', async () => {
    const resolved = await Promise.all(Array.from({ length: 8 }, () => resolveAdminKey({ dataDir })));
    expect(new Set(resolved.map((r) => r.key)).size).toBe(1);
    expect(resolved.filter((r) => r.generated)).toHaveLength(1);
    expect(await readdir(dataDir)).toEqual([ADMIN_KEY_FILE]);
  });

  it('when a key is configured, then it wins over the kept one and nothing is written', async () => {
    const configured = 'configured-admin-key-0123456789';
    expect(await resolveAdminKey({ configured, dataDir })).toEqual({
      key: configured,
      generated: false,
      source: 'configured',
    });
    await expect(readdir(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('when the configured or kept key is shorter than 16 characters, then resolving refuses to start', async () => {
    await expect(resolveAdminKey({ configured: 'short', dataDir })).rejects.toThrow(
      /VERDICT_ADMIN_KEY: .*16 characters/,
    );
    await resolveAdminKey({ dataDir });
    await writeFile(path.join(dataDir, ADMIN_KEY_FILE), 'short\n');
    await expect(resolveAdminKey({ dataDir })).rejects.toThrow(/admin-key: .*16 characters/);
  });
});
