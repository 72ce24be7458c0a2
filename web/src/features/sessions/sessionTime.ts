/** How long an exploratory session took, and its updates of notes and findings. */
import type { ExploratorySession } from '../../api/queries';

type Timed = Pick<ExploratorySession, 'startedAt' | 'completedAt'>;

/** Whole minutes from the start to the completion (or to `now` while it runs); null before it starts. */
export function minutesSpent(session: Timed, now = Date.now()): number | null {
  if (session.startedAt === null) return null;
  const end = session.completedAt ? Date.parse(session.completedAt) : now;
  return Math.round((end - Date.parse(session.startedAt)) / 60_000);
}

/** The session's time box after its time spent: ` · time box 45 min` (and how far over, once it is). */
export function timeBoxOf(minutes: number | null, box: number | null): string {
  if (box === null) return '';
  const over = minutes !== null && minutes > box ? ` (${minutes - box} min over)` : '';
  return ` · time box ${box} min${over}`;
}

/** The update that saves the notes, and the new finding (trimmed, after the others) when there is one. */
export function notesAndFindings(notes: string, finding: string, findings: ExploratorySession['findings']) {
  const title = finding.trim();
  if (!title) return { notes };
  return {
    notes,
    findings: [...findings.map((f) => ({ ...f, issueKey: f.issueKey ?? undefined })), { title }],
  };
}
