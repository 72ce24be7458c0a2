/**
 * Moving through a run and giving verdicts, by key or button: J or ↓ next case, K or ↑ previous, P F B S R
 * record a verdict (with the seconds the case was open) and move on to the next case still to test. The
 * current case is the page's `case` search parameter.
 */
import { useHotkeys } from '@mantine/hooks';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useEffect, useRef } from 'react';
import type { ManualRunDetail } from '../../api/queries';
import { useCanWrite } from '../../api/role';
import { useRecordVerdict } from './api';
import { nextToTest, step, VERDICTS, type RunCaseResult, type Verdict } from './verdicts';

const route = getRouteApi('/signed-in/projects/$projectId/manual-runs/$runId');

export function useRunExecution(projectId: string, run: ManualRunDetail) {
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/manual-runs/$runId' });
  const canWrite = useCanWrite(projectId);
  const cases = run.testCases;
  const found = cases.findIndex((c) => c._id === search.case);
  const index = found >= 0 ? found : 0;
  const current = cases[index];
  const go = (next: number) => {
    const target = cases[next];
    if (target) void navigate({ search: { case: target._id }, replace: true });
  };

  // Elapsed time: counted from when the case was opened, in whole seconds (sent with the verdict; the
  // ticking display is ElapsedTime's, so that its tick re-renders it alone, not the run's page).
  const openedAt = useRef(Date.now());
  useEffect(() => {
    openedAt.current = Date.now();
  }, [current?._id]);

  const record = useRecordVerdict(projectId, run._id);
  const give = (result: Verdict) => {
    if (!current || !canWrite) return;
    record.mutate({
      runCase: current,
      result,
      elapsed: Math.max(0, Math.round((Date.now() - openedAt.current) / 1000)),
    });
    const results = cases.map((c, i) => (i === index ? result : c.result) as RunCaseResult);
    go(nextToTest(results, index));
  };
  // Stable for the memoised case panel: a verdict's later renders of the page (its answer, the run asked
  // again) leave the panel of the next case alone.
  const latestGive = useRef(give);
  useEffect(() => {
    latestGive.current = give;
  });
  const onVerdict = useCallback((result: Verdict) => latestGive.current(result), []);
  useHotkeys([
    ['J', () => go(step(index, 1, cases.length))],
    ['ArrowDown', () => go(step(index, 1, cases.length))],
    ['K', () => go(step(index, -1, cases.length))],
    ['ArrowUp', () => go(step(index, -1, cases.length))],
    ...VERDICTS.map((v) => [v.key, () => give(v.result)] as [string, () => void]),
  ]);
  return { canWrite, index, current, go, onVerdict, record };
}
