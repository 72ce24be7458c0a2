/**
 * Quarantines (issue 32): the reads several pages share (the quarantine list, a test's active quarantines)
 * and the writes, which ask every quarantine read of the project again.
 */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type Read, type ReadQuery, type WriteBody } from './client';
import { MINUTE, path } from './queries';

export type Quarantine = Read<'/{projectId}/quarantines'>[number];
export type QuarantinesQuery = ReadQuery<'/{projectId}/quarantines'>;
export type NewQuarantine = WriteBody<'/{projectId}/quarantines', 'post'>;

/** The most days ahead a quarantine may expire (the API refuses more). */
export const MAX_QUARANTINE_DAYS = 90;

/** Every quarantine read of a project starts with this key: a write asks them all again. */
const quarantinesKey = (projectId: string) => ['quarantines', projectId] as const;

export const quarantinesQuery = (projectId: string, query: QuarantinesQuery) =>
  queryOptions({
    queryKey: [...quarantinesKey(projectId), query],
    queryFn: async ({ signal }) =>
      unwrap(
        await verdict.api.GET('/{projectId}/quarantines', { params: { ...path(projectId), query }, signal }),
      ),
    staleTime: MINUTE,
  });

/** A test's active quarantines (one per platform at most, or one for every platform). */
export const testQuarantinesQuery = (projectId: string, testCaseId: string) =>
  quarantinesQuery(projectId, { status: 'active', testCaseId, limit: 20 });

function useInvalidateQuarantines(projectId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: quarantinesKey(projectId) });
}

export function useQuarantineTest(projectId: string, onDone: (quarantine: Quarantine) => void) {
  const invalidate = useInvalidateQuarantines(projectId);
  return useMutation({
    mutationFn: async (body: NewQuarantine) =>
      unwrap(await verdict.api.POST('/{projectId}/quarantines', { params: path(projectId), body })).data,
    onSuccess: async (quarantine) => {
      await invalidate();
      onDone(quarantine);
    },
  });
}

export function useExtendQuarantine(projectId: string, quarantineId: string, onDone: () => void) {
  const invalidate = useInvalidateQuarantines(projectId);
  return useMutation({
    mutationFn: async (expiresAt: string) =>
      unwrap(
        await verdict.api.POST('/{projectId}/quarantines/{quarantineId}/extend', {
          params: { path: { projectId, quarantineId } },
          body: { expiresAt },
        }),
      ).data,
    onSuccess: async () => {
      await invalidate();
      onDone();
    },
  });
}

export function useLiftQuarantine(projectId: string, quarantineId: string, onDone: () => void) {
  const invalidate = useInvalidateQuarantines(projectId);
  return useMutation({
    mutationFn: async (reason: string) =>
      unwrap(
        await verdict.api.POST('/{projectId}/quarantines/{quarantineId}/lift', {
          params: { path: { projectId, quarantineId } },
          body: reason.trim() ? { reason: reason.trim() } : {},
        }),
      ).data,
    onSuccess: async () => {
      await invalidate();
      onDone();
    },
  });
}

export interface RecentSignature {
  id: string;
  text: string;
  occurrences: number;
}

/** How far back a quarantine's default evidence looks, as the API's default does. */
const EVIDENCE_DAYS = 30;

type Execution = NonNullable<Read<'/{projectId}/test-cases/{caseId}'>['history']>['items'][number];

/**
 * The error signatures of a test's failures in the last 30 days (on one platform, or all with null),
 * most frequent first: what a new quarantine forgives by default.
 */
export function recentSignatures(items: Execution[], platform: string | null, now: Date): RecentSignature[] {
  const since = now.getTime() - EVIDENCE_DAYS * 86_400_000;
  const found = new Map<string, RecentSignature>();
  for (const item of items) {
    if (item.outcome !== 'failed' && item.outcome !== 'flaky') continue;
    if (!item.errorSignature || Date.parse(item.startedAt) < since) continue;
    if (platform !== null && item.project !== platform) continue;
    const known = found.get(item.errorSignature.id);
    found.set(item.errorSignature.id, {
      ...item.errorSignature,
      occurrences: (known?.occurrences ?? 0) + 1,
    });
  }
  return [...found.values()].sort((a, b) => b.occurrences - a.occurrences);
}

/** A test's latest executions (newest first), for the signatures a new quarantine would forgive. */
export const testExecutionsQuery = (projectId: string, caseId: string) =>
  queryOptions({
    queryKey: ['test-executions', projectId, caseId],
    queryFn: async ({ signal }): Promise<Execution[]> =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-cases/{caseId}', {
          params: { path: { projectId, caseId }, query: { include: 'history', historyLimit: 100 } },
          signal,
        }),
      ).data.history?.items ?? [],
    staleTime: MINUTE,
  });
