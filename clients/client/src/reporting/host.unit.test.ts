import { createHash } from 'node:crypto';
import os from 'node:os';
import { hostInfo, hostNameHash } from './host';

describe("a run's host", () => {
  it('when a machine name is hashed, then it is the first 16 hex digits of its sha256, and the name is nowhere in it', () => {
    const hash = hostNameHash('ci-runner-7.internal');
    expect(hash).toBe(createHash('sha256').update('ci-runner-7.internal').digest('hex').slice(0, 16));
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(hostNameHash('ci-runner-8.internal')).not.toBe(hash);
  });

  it('when the host is read, then it is this machine, its name only hashed', () => {
    const host = hostInfo();
    expect(host).toMatchObject({
      nameHash: hostNameHash(os.hostname()),
      os: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      memoryMb: Math.round(os.totalmem() / (1024 * 1024)),
    });
    expect(Object.values(host)).not.toContain(os.hostname());
    for (const load of host.loadAverage ?? []) expect(load).toBeGreaterThanOrEqual(0);
  });
});
