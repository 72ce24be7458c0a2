/**
 * Loading the demo shop's history into a project, in the browser, on the person's session: the same runs
 * and the same loader as `npm run demo` (@verdict/client/demo), through the app's one client.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { demoHistory, loadDemoRuns, type DemoLoadProgress } from '@verdict/client/demo';
import { verdict } from '../../api/client';

/** Loads the demo runs; `onProgress` hears of each run. Every read of the app is asked again after. */
export function useLoadDemoData(projectId: string, onProgress: (progress: DemoLoadProgress) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      loadDemoRuns(verdict, demoHistory({ now: new Date() }).runs, { project: projectId, onProgress }),
    // The demo fills every page of the project (runs, filters, dashboard, tests, errors, analytics): no one
    // query key names them all, so the whole cache is invalidated, including after a load that failed half-way.
    onSettled: () => queryClient.invalidateQueries(),
  });
}
