/**
 * What the debug bundle reads from (spec §2 "Debug bundle", §4.2): the read models, the public URL and
 * the artifact URL signer, and the clock. Each scope assembles its full bundle from them (run/, suite/,
 * test/); the view is applied afterwards (`applyView`).
 *
 * Decisions where the spec is silent:
 * - A suite is a spec file in a run, and `suiteId` is its path: the runs detail (`include=specs`) names
 *   spec files by path and nothing else, so the path is the id a client already has.
 * - A test case is (file, titlePath), whatever the platform (browser) it ran on. The run and suite scopes
 *   list each failing platform of a test as its own item (same caseId, its `project`); the test scope shows
 *   the platform asked for (`project`), else the one where it went worst in the run (failed, then flaky,
 *   then passed, then skipped; ties by name).
 * - `alsoFailedIn` lists the other runs, among the project's 20 most recent, in which the test case
 *   failed (outcome `failed`; a flaky pass does not count), newest first: enough to tell a new failure
 *   from a recurring one without scanning the history.
 * - Attempts are numbered by their position in the run (0-based, by the runner's attempt number), so a
 *   gap in what the runner reported cannot make an index point nowhere.
 * - An artifact attached to a result but not uploaded (yet) still gets a URL: the artifact download path,
 *   which answers 404 until the upload arrives.
 */
import type { Clock } from '@verdict/platform';
import type { TestResultsReadStore } from '../readStore';
import type { ArtifactToSign } from '../runs/runArtifacts';

export interface BundleSources extends TestResultsReadStore {
  /** VERDICT_PUBLIC_URL: base of `links.uiUrl` and of unsigned artifact URLs. */
  publicUrl: string;
  /** Builds an artifact's download URL; without it, the unsigned artifact download path is used. */
  signArtifactUrl?: (artifact: ArtifactToSign) => string;
  /** Gives `meta.generatedAt`. */
  clock: Clock;
}

/** A page of a run or suite bundle: the bundle and how many failing tests there are in all. */
export interface PagedBundle<T> {
  bundle: T;
  total: number;
}

export { platformOrNull, type Timestamp } from '../readStore';
