/**
 * The case library's and the case editor's writes. Each refreshes the reads it changes through their own
 * query options (api/manual.ts): the library's pages, the suite tree, the case.
 */
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type WriteBody } from '../../api/client';
import { manualCaseQuery, manualCasesKey, manualSuitesQuery } from '../../api/manual';
import type { ManualCase } from '../../api/queries';
import { uploadBody } from '../../components/attachments';
import type { CaseField } from '../../components/manualValues';

export type CasePatch = WriteBody<'/{projectId}/manual-test-cases/{caseId}', 'patch'>;
type SuiteBody = WriteBody<'/{projectId}/manual-suites', 'post'>;

/** The library (its pages and the suite tree, whose counts move with the cases) is read again. */
async function refreshLibrary(queryClient: QueryClient, projectId: string) {
  await queryClient.invalidateQueries({ queryKey: manualCasesKey(projectId) });
  await queryClient.invalidateQueries({ queryKey: manualSuitesQuery(projectId).queryKey });
}

export type SuiteChange =
  | { kind: 'create'; name: string; parentId: string | null }
  | { kind: 'rename'; suiteId: string; name: string }
  | { kind: 'move'; suiteId: string; parentId: string | null }
  | { kind: 'delete'; suiteId: string };

/** Creates, renames, moves or deletes a suite; `onSaved` runs once the library is read again. */
export function useSuiteChange(projectId: string, onSaved: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (change: SuiteChange) => {
      if (change.kind === 'create') {
        const body: SuiteBody = { name: change.name, parentId: change.parentId };
        return unwrap(
          await verdict.api.POST('/{projectId}/manual-suites', { params: { path: { projectId } }, body }),
        );
      }
      const path = { projectId, suiteId: change.suiteId };
      if (change.kind === 'delete') {
        return unwrap(await verdict.api.DELETE('/{projectId}/manual-suites/{suiteId}', { params: { path } }));
      }
      return unwrap(
        await verdict.api.PATCH('/{projectId}/manual-suites/{suiteId}', {
          params: { path },
          body: change.kind === 'rename' ? { name: change.name } : { parentId: change.parentId },
        }),
      );
    },
    onSuccess: async () => {
      await refreshLibrary(queryClient, projectId);
      onSaved();
    },
  });
}

/** Creates a case (in a suite, or in none); `onCreated` runs once the library is read again. */
export function useCreateCase(projectId: string, onCreated: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WriteBody<'/{projectId}/manual-test-cases', 'post'>) =>
      unwrap(
        await verdict.api.POST('/{projectId}/manual-test-cases', { params: { path: { projectId } }, body }),
      ),
    onSuccess: async () => {
      await refreshLibrary(queryClient, projectId);
      onCreated();
    },
  });
}

/** A change the library makes to every selected case: its suite, one field, or one more tag. */
export type BulkEdit =
  | { kind: 'move'; suiteId: string | null }
  | { kind: 'set'; field: CaseField; value: string }
  | { kind: 'tag'; tag: string };

const patchOf = (bulk: BulkEdit, row: ManualCase): CasePatch =>
  bulk.kind === 'move'
    ? { suiteId: bulk.suiteId }
    : bulk.kind === 'set'
      ? { [bulk.field]: bulk.value }
      : { tags: [...row.tags.filter((existing) => existing !== bulk.tag), bulk.tag] };

/**
 * One PATCH per selected case, one after the other (writes count in the token's limit of 60 a minute,
 * spec §8); the library is read again whatever the outcome, then `onDone` runs on success.
 */
export function useBulkEdit(projectId: string, cases: ManualCase[], onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (bulk: BulkEdit) => {
      for (const row of cases) {
        unwrap(
          await verdict.api.PATCH('/{projectId}/manual-test-cases/{caseId}', {
            params: { path: { projectId, caseId: row._id } },
            body: patchOf(bulk, row),
          }),
        );
      }
    },
    onSettled: () => refreshLibrary(queryClient, projectId),
    onSuccess: onDone,
  });
}

/** Saves the editor's changes: the answer becomes the cached case, the library is asked again. */
export function useSaveCase(projectId: string, caseId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (changes: CasePatch) =>
      unwrap(
        await verdict.api.PATCH('/{projectId}/manual-test-cases/{caseId}', {
          params: { path: { projectId, caseId } },
          body: changes,
        }),
      ).data,
    onSuccess: (answer) => {
      queryClient.setQueryData(manualCaseQuery(projectId, caseId).queryKey, answer);
      void queryClient.invalidateQueries({ queryKey: manualCasesKey(projectId) });
    },
  });
}

/** A write that appends to the case (a comment, an issue), then shows the case as it is now. */
export function useAppendToCase(projectId: string, caseId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CasePatch) =>
      unwrap(
        await verdict.api.PATCH('/{projectId}/manual-test-cases/{caseId}', {
          params: { path: { projectId, caseId } },
          body,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: manualCaseQuery(projectId, caseId).queryKey }),
  });
}

/** The case's attachment calls, for the attachment gallery: send, remove, read the case again. */
export function useCaseAttachments(projectId: string, caseId: string) {
  const queryClient = useQueryClient();
  return {
    upload: async (file: File) =>
      unwrap(
        await verdict.api.POST('/{projectId}/manual-test-cases/{caseId}/attachments', {
          params: { path: { projectId, caseId } },
          ...uploadBody(file),
        }),
      ),
    remove: async (attachmentId: string) =>
      unwrap(
        await verdict.api.DELETE('/{projectId}/manual-test-cases/{caseId}/attachments/{attachmentId}', {
          params: { path: { projectId, caseId, attachmentId } },
        }),
      ),
    refresh: () => queryClient.invalidateQueries({ queryKey: manualCaseQuery(projectId, caseId).queryKey }),
  };
}
