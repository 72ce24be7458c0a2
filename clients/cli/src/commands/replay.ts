/**
 * `verdict replay <spool…>`: sends what a reporter kept in its spool, with the identities it had, so what
 * had already arrived counts as a duplicate. A spool sent whole is removed (`--keep` keeps it).
 */
import { readSpool, replaySpool, SpoolFormatError } from '@verdict/client/reporting';
import { rm } from 'node:fs/promises';
import { connect, verdictFailure, type ConnectionFlags } from '../connection';
import { EXIT, usageError } from '../exitCodes';
import { bytes } from '../output';
import { expandFiles } from '../reports';
import type { Context } from './import';

export interface ReplayFlags extends ConnectionFlags {
  keep?: boolean;
}

export async function replayCommand(
  patterns: readonly string[],
  flags: ReplayFlags,
  context: Context,
): Promise<number> {
  const { output, env, cwd } = context;
  if (patterns.length === 0) throw usageError('verdict replay: name the spool file(s) to send');
  const files = await expandFiles(patterns, cwd);
  for (const file of files) {
    let spool;
    try {
      spool = await readSpool(file);
    } catch (error) {
      if (error instanceof SpoolFormatError) throw usageError(error.message);
      throw error;
    }
    // The spool remembers its server and project; flags and variables win (the token is never in it).
    const connection = connect(flags, env, {
      urlFallback: spool.header.baseUrl,
      projectFallback: spool.header.project,
    });
    let replayed;
    try {
      replayed = await replaySpool(connection.client, file, {
        onProgress: (progress) =>
          output.progress(
            `${file}: ${progress.results}/${progress.totalResults} results, ${progress.files} files (${bytes(progress.bytes)})`,
          ),
      });
    } catch (error) {
      output.done();
      throw verdictFailure(error, connection.baseUrl);
    }
    output.done();
    output.info(
      `${file}: run ${replayed.runId} (${replayed.status}): ${replayed.accepted} result(s) recorded, ` +
        `${replayed.duplicates} already there, ${replayed.files} file(s)` +
        (replayed.missingFiles.length > 0 ? `, ${replayed.missingFiles.length} file(s) gone from disk` : ''),
    );
    if (!flags.keep) {
      await rm(file, { force: true });
      await rm(`${file}.files`, { recursive: true, force: true });
    }
  }
  return EXIT.ok;
}
