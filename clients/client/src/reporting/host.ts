// The machine a reporter runs on, for a run's start (`host`): kept so that load-dependent failures can be
// explained later. The machine's name never leaves it: only the start of its sha256 is sent.
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { StartRunBody } from '@verdict/client';

export type RunHost = NonNullable<StartRunBody['host']>;

/** The first 16 hex digits of the sha256 of a machine name: the same runner reads the same, unnamed. */
export function hostNameHash(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 16);
}

const rounded = (load: number) => Math.round(Math.max(0, load) * 100) / 100;

/**
 * This machine as a run's `host`: its name hashed, OS (platform and release), CPUs, memory in MB and its
 * 1, 5 and 15 minute load averages now (all zero on Windows, where Node has none: then left out).
 *
 * @example const start = { ...startBody(settings, run), host: hostInfo() };
 */
export function hostInfo(): RunHost {
  const load = os.loadavg();
  const cpus = os.cpus().length || os.availableParallelism?.() || 0;
  return {
    nameHash: hostNameHash(os.hostname()),
    os: `${os.platform()} ${os.release()}`.slice(0, 200),
    ...(cpus > 0 ? { cpus } : {}),
    memoryMb: Math.round(os.totalmem() / (1024 * 1024)),
    ...(load.some((value) => value > 0) ? { loadAverage: load.map(rounded) } : {}),
  };
}
