/**
 * How a run and its attempts ran, in Markdown: the host and runner settings its start sent, and an attempt's
 * worker. Kept so that order-dependent and load-dependent failures can be explained; each text is empty
 * when the reporter sent nothing, so documents of older runs read as before.
 */
import type { ResultWorker, RunHost, RunSettings } from '@verdict/contracts';
import { code } from './markdownText';

export function hostText(host: RunHost | null | undefined): string {
  if (!host) return '';
  const parts = [
    ...(host.os ? [host.os] : []),
    ...(host.cpus !== undefined ? [`${host.cpus} CPUs`] : []),
    ...(host.memoryMb !== undefined ? [`${host.memoryMb} MB memory`] : []),
    ...(host.loadAverage
      ? [`load average ${host.loadAverage.map((load) => load.toFixed(2)).join(' ')} at start`]
      : []),
    ...(host.nameHash ? [`host ${code(host.nameHash)}`] : []),
  ];
  return parts.length > 0 ? `Host: ${parts.join(', ')}` : '';
}

export function settingsText(settings: RunSettings | null | undefined): string {
  if (!settings) return '';
  const parts = [
    ...(settings.workers !== undefined
      ? [`${settings.workers} worker${settings.workers === 1 ? '' : 's'}`]
      : []),
    ...(settings.fullyParallel !== undefined ? [`fullyParallel ${settings.fullyParallel}`] : []),
    ...(settings.shard ? [`shard ${settings.shard.current}/${settings.shard.total}`] : []),
    ...(settings.seed !== undefined ? [`seed ${code(settings.seed)}`] : []),
  ];
  return parts.length > 0 ? `Settings: ${parts.join(', ')}` : '';
}

/** The run's host and settings, one line each; none when the start sent neither. */
export function howItRanLines(environment: {
  host?: RunHost | null;
  settings?: RunSettings | null;
}): string[] {
  return [hostText(environment.host), settingsText(environment.settings)].filter((line) => line !== '');
}

/** `worker 2, parallelIndex 1, ordinal 4 (0-based) among that worker's tests`; empty without a worker. */
export function workerText(worker: ResultWorker | null | undefined): string {
  if (!worker) return '';
  const parts = [
    ...(worker.index !== undefined ? [`worker ${worker.index}`] : []),
    ...(worker.parallelIndex !== undefined ? [`parallelIndex ${worker.parallelIndex}`] : []),
    ...(worker.ordinal !== undefined
      ? [`ordinal ${worker.ordinal} (0-based) among that worker's tests`]
      : []),
  ];
  return parts.join(', ');
}
