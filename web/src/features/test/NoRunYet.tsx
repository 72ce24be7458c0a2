import { getRouteApi } from '@tanstack/react-router';
import { EmptyState } from '../../components/states';

const route = getRouteApi('/signed-in/projects/$projectId/tests/$caseId');

/** A test known by its id whose runs are all gone (retention): nothing to open. */
export function NoRunYet() {
  const { title } = route.useLoaderData();
  return <EmptyState title={title}>No run of this test is kept any more.</EmptyState>;
}
