import { useQuery } from '@tanstack/react-query';
import { sessionQuery } from './queries';

/** Roles whose writes the API accepts (spec §5.4); a viewer sees no write control. */
const WRITERS = new Set(['owner', 'admin', 'member']);

/** Whether the signed-in person may make changes in this project (generate a PDF report…). */
export function useCanWrite(projectId: string): boolean {
  const { data } = useQuery(sessionQuery());
  const role = data?.projects.find((project) => project.id === projectId)?.role ?? null;
  return role !== null && WRITERS.has(role);
}

/** Webhook writes are for owners and admins (spec §4.9). */
export function useCanManageWebhooks(projectId: string): boolean {
  const { data } = useQuery(sessionQuery());
  const role = data?.projects.find((project) => project.id === projectId)?.role ?? null;
  return role === 'owner' || role === 'admin';
}

/** Quality gate rules are for owners and admins (issue 32); every role reads them. */
export const useCanSetGateRules = useCanManageWebhooks;
