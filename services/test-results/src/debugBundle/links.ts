/** The links of a bundle: into the Verdict UI (`links.uiUrl`) and the trace viewer (`links.traceViewerUrl`). */
import { TRACE_VIEWER_PATH } from '@verdict/contracts';

/** Which page of the UI a link opens; the run page without suite or case. */
export interface UiTarget {
  suiteId?: string;
  caseId?: string;
  attempt?: number;
  /** The platform whose attempts the page shows, when the test ran on several. */
  project?: string;
}

/**
 * Deep link into the Verdict UI (`links.uiUrl`), under VERDICT_PUBLIC_URL.
 *
 * @example uiUrl('https://verdict.example.com', 'p1', 'r1', { caseId: 'c1', attempt: 2, project: 'firefox' })
 * // 'https://verdict.example.com/projects/p1/runs/r1/tests/c1?attempt=2&project=firefox'
 */
export function uiUrl(publicUrl: string, projectId: string, runId: string, target: UiTarget = {}): string {
  const base = `${publicUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}`;
  if (target.caseId !== undefined) {
    const query = new URLSearchParams();
    if (target.attempt !== undefined) query.set('attempt', String(target.attempt));
    if (target.project !== undefined) query.set('project', target.project);
    const search = query.size > 0 ? `?${query.toString()}` : '';
    return `${base}/tests/${encodeURIComponent(target.caseId)}${search}`;
  }
  if (target.suiteId !== undefined) return `${base}/suites/${encodeURIComponent(target.suiteId)}`;
  return base;
}

/**
 * The trace viewer opened on a trace archive (`links.traceViewerUrl`); null without a trace. The viewer is
 * the copy of Playwright's trace viewer this Verdict serves (TRACE_VIEWER_PATH, under VERDICT_PUBLIC_URL):
 * it runs in the browser and fetches the archive itself, so the signed URL is all it needs, and a trace
 * opens without reaching trace.playwright.dev.
 *
 * @example traceViewerUrl(bundle.traceLink, 'https://verdict.example.com') // 'https://verdict.example.com/trace-viewer/?trace=https%3A%2F%2F…'
 */
export function traceViewerUrl(traceLink: string | null, publicUrl: string): string | null {
  if (traceLink === null) return null;
  return `${publicUrl.replace(/\/+$/, '')}${TRACE_VIEWER_PATH}/?trace=${encodeURIComponent(traceLink)}`;
}
