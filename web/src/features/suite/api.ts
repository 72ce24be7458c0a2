/** The suite page's own reads; the run (and so the spec file) is `runQuery` in `api/queries.ts`. */
import { verdict } from '../../api/client';

/** The spec file's failures as Markdown, for the clipboard. */
export const loadSuiteMarkdown = (projectId: string, runId: string, suiteId: string) =>
  verdict.debugBundleMarkdown({ runId, suiteId, limit: 50 }, { project: projectId });
