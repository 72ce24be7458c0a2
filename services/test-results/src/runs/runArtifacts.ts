/**
 * The run artifacts: the files uploaded to each run (name, type, size, blob key, the result they belong
 * to). Serves `include=artifacts` and the debug bundle's download links. An artifact is inserted once by
 * its id, so applying it again changes nothing.
 */
import { eventProjectId, type Projection, type SqlExecutor } from '@verdict/platform';
import { testResultsEventOf, type TestResultsReadStore } from '../readStore';

async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.artifacts (
    run_id text NOT NULL, id text NOT NULL, project_id text NOT NULL, name text NOT NULL,
    content_type text NOT NULL, size bigint NOT NULL, blob_key text NOT NULL, result_ref text,
    added_at timestamptz NOT NULL, PRIMARY KEY (run_id, id))`);
}

/** @example createProjector({ db, projections: [runArtifactsProjection('test_results_read_artifacts'), …], … }); */
export function runArtifactsProjection(name: string): Projection {
  return {
    name,
    canHandle: ['run.artifact-added'],
    setup,
    async apply(tx, events, s) {
      const rows = events.flatMap((stored) => {
        const event = testResultsEventOf(stored);
        if (event.type !== 'run.artifact-added') return [];
        const { runId, artifact, addedAt } = event.data;
        return [{ run_id: runId, project_id: eventProjectId(stored), added_at: addedAt, ...artifact }];
      });
      if (rows.length === 0) return;
      await tx.query(
        `INSERT INTO ${s}.artifacts (run_id, id, project_id, name, content_type, size, blob_key, result_ref, added_at)
         SELECT DISTINCT ON (run_id, id) run_id, id, project_id, name, "contentType", size, "blobKey", "resultRef", added_at
         FROM jsonb_to_recordset($1::jsonb) AS a(run_id text, id text, project_id text, name text, "contentType" text,
           size bigint, "blobKey" text, "resultRef" text, added_at timestamptz)
         ON CONFLICT (run_id, id) DO NOTHING`,
        [JSON.stringify(rows)],
      );
    },
  };
}

export interface ArtifactRow {
  id: string;
  name: string;
  contentType: string;
  size: number;
  blobKey: string;
  resultRef: string | null;
}

/** What a signer gets to build an authenticated, time-limited download URL. */
export interface ArtifactToSign extends ArtifactRow {
  projectId: string;
  runId: string;
}

/**
 * The run's artifacts whose id or name is one of `keys`, oldest first.
 *
 * @example const artifacts = await runArtifacts(store, runId, ['art-1', 'trace.zip']);
 */
export async function runArtifacts(
  { db, schemas }: TestResultsReadStore,
  runId: string,
  keys: readonly string[],
): Promise<ArtifactRow[]> {
  const { rows } = await db.query<ArtifactColumns>(
    `SELECT ${ARTIFACT_COLUMNS} FROM ${schemas.runArtifacts}.artifacts
     WHERE run_id = $1 AND (id = ANY($2::text[]) OR name = ANY($2::text[]))
     ORDER BY added_at, id`,
    [runId, keys],
  );
  return rows.map(artifactOfRow);
}

/** The artifacts table's columns an ArtifactRow is read from (the debug bundle reads them too). */
export const ARTIFACT_COLUMNS = 'id, name, content_type, size, blob_key, result_ref';

export interface ArtifactColumns {
  id: string;
  name: string;
  content_type: string;
  size: string | number;
  blob_key: string;
  result_ref: string | null;
}

export function artifactOfRow(row: ArtifactColumns): ArtifactRow {
  return {
    id: row.id,
    name: row.name,
    contentType: row.content_type,
    size: Number(row.size),
    blobKey: row.blob_key,
    resultRef: row.result_ref,
  };
}
