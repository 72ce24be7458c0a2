import { z } from 'zod';
import { MEDIA_TYPE } from './http';
import { InstantInput } from './instant';
import {
  ArtifactRecord,
  CoverageReport,
  RunCi,
  RunCommit,
  RunFramework,
  RunHost,
  RunSettings,
  RunStatus,
  ShardInput,
} from './testResultsEvents';

/**
 * Request and response payloads of the ingest API (API.md, "Ingest — automated runs"). Requests are not
 * strict: test reporters are released on their own schedule, and a newer reporter sending a field this
 * server does not know yet must not fail a CI pipeline; unknown fields are dropped.
 */

const Timestamp = z.iso.datetime({ offset: true });

/** At most this many results in one request (API.md). */
export const MAX_RESULTS_PER_BATCH = 1_000;

export const StartRunRequest = z
  .object({
    /** Shards (and retried starts) sending the same ciRunId in a project join one run. */
    ciRunId: z.string().trim().min(1).max(200).optional(),
    title: z.string().trim().min(1).max(500).optional(),
    branch: z.string().trim().min(1).max(500).optional(),
    environment: z.string().trim().min(1).max(200).optional(),
    commit: RunCommit.optional(),
    ci: RunCi.optional(),
    framework: RunFramework.optional(),
    shard: ShardInput.optional(),
    startedAt: InstantInput.optional(),
    tags: z.array(z.string().trim().min(1).max(200)).max(100).optional(),
    /** The branch its failures are judged against (a verdict per failure); default: the project's default branch. */
    baseBranch: z.string().trim().min(1).max(500).optional(),
    /** The machine the run (or this shard) starts on; its name only as a hash. */
    host: RunHost.optional(),
    /** The runner's settings: workers, fullyParallel, shard, seed. */
    settings: RunSettings.extend({ shard: ShardInput.optional() }).optional(),
  })
  .refine((start) => start.ciRunId !== undefined || start.shard === undefined || start.shard.total === 1, {
    error: 'is required with shard: shards join one run by their ciRunId',
    path: ['ciRunId'],
  });
export type StartRunRequest = z.infer<typeof StartRunRequest>;

export const FinishRunRequest = z.object({
  finishedAt: InstantInput.optional(),
  status: RunStatus.optional(),
  /** Required when the run has shards: the run finishes once every shard has finished. */
  shard: ShardInput.optional(),
});
export type FinishRunRequest = z.infer<typeof FinishRunRequest>;

/**
 * The JSON form of "add results". Items stay unknown here: each is parsed on its own so that a refusal
 * names every bad item by its index.
 */
export const AddResultsRequest = z.object({ results: z.array(z.unknown()).max(MAX_RESULTS_PER_BATCH) });
export type AddResultsRequest = z.infer<typeof AddResultsRequest>;

export const AddResultsResponse = z.object({
  /** Results recorded by this request. */
  accepted: z.number().int().min(0),
  /** Results already recorded in the run (or sent twice in this request): not recorded again. */
  duplicates: z.number().int().min(0),
});
export type AddResultsResponse = z.infer<typeof AddResultsResponse>;

export const AddCoverageRequest = CoverageReport;
export type AddCoverageRequest = z.infer<typeof AddCoverageRequest>;

/** The form fields of an artifact upload, beside its `file` part. */
export const ArtifactUploadFields = z.object({
  name: z.string().trim().min(1).max(500),
  contentType: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(MEDIA_TYPE, { error: 'must be a media type such as image/png' }),
  resultRef: z.string().min(1).max(2_000).optional(),
});
export type ArtifactUploadFields = z.infer<typeof ArtifactUploadFields>;

/**
 * What the upload route records once the blob is stored: its id (minted by the route, which names the
 * blob), and `blobKey` where the blob lives.
 */
export const RecordArtifactRequest = ArtifactRecord.extend({
  resultRef: ArtifactRecord.shape.resultRef.optional(),
});
export type RecordArtifactRequest = z.infer<typeof RecordArtifactRequest>;

export const ArtifactSummary = z.object({
  id: z.string(),
  name: z.string(),
  contentType: z.string(),
  size: z.number().int(),
});
export type ArtifactSummary = z.infer<typeof ArtifactSummary>;

/** The run as ingest answers it (start, finish). */
export const RunSummary = z.object({
  id: z.string(),
  counter: z.number().int().min(1),
  status: z.enum(['running', 'finished']),
  projectId: z.string(),
  ciRunId: z.string().nullable(),
  title: z.string().nullable(),
  branch: z.string().nullable(),
  environment: z.string().nullable(),
  commit: RunCommit.nullable(),
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
});
export type RunSummary = z.infer<typeof RunSummary>;
