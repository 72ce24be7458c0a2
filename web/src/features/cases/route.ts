import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { validateCasesSearch } from './search';

/** The case library. */
export const casesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/cases',
  validateSearch: validateCasesSearch,
  component: lazyRouteComponent(() => import('./CaseLibraryPage'), 'CaseLibraryPage'),
});

/** One case in the editor. */
export const caseRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/cases/$caseId',
  component: lazyRouteComponent(() => import('./CaseEditorPage'), 'CaseEditorPage'),
});
