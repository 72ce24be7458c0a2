/** The run page's own reads; the run itself is `runQuery` in `api/queries.ts` (the run's suite page reads it too). */
import { verdict } from '../../api/client';

/** The run's failures as Markdown, for the clipboard. */
export const loadRunMarkdown = (projectId: string, runId: string) =>
  verdict.debugBundleMarkdown({ runId, limit: 50 }, { project: projectId });
