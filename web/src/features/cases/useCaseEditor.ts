/**
 * The case editor's draft: it starts from the case and is reset only by a save, so a comment or an
 * attachment added meanwhile (which refreshes the case) keeps what is being typed. "Save" (or Ctrl+S) sends
 * one PATCH of what changed; leaving with unsaved changes asks first, in the app and when the tab closes.
 */
import { useHotkeys } from '@mantine/hooks';
import { useBlocker } from '@tanstack/react-router';
import { useState } from 'react';
import type { ManualCaseDetail } from '../../api/queries';
import { useSaveCase } from './api';
import { changesOf, draftOf, parseCustomFields, type CaseDraft } from './caseDraft';

export function useCaseEditor(projectId: string, testCase: ManualCaseDetail, canWrite: boolean) {
  const [saved, setSaved] = useState<CaseDraft>(() => draftOf(testCase));
  const [draft, setDraft] = useState<CaseDraft>(saved);
  const changes = changesOf(saved, draft);
  const dirty = Object.keys(changes).length > 0;
  const customFields = parseCustomFields(draft.customFields);
  const set = <K extends keyof CaseDraft>(key: K, value: CaseDraft[K]) =>
    setDraft((previous) => ({ ...previous, [key]: value }));

  const save = useSaveCase(projectId, testCase._id);
  const saveChanges = () =>
    save.mutate(changes, {
      onSuccess: (answer) => {
        const next = draftOf(answer);
        setSaved(next);
        setDraft(next);
      },
    });
  const blocker = useBlocker({
    shouldBlockFn: () => dirty,
    enableBeforeUnload: () => dirty,
    withResolver: true,
  });
  const canSave = canWrite && dirty && !('error' in customFields) && draft.title.trim() !== '';
  useHotkeys([['mod+S', () => canSave && saveChanges()]], []);
  const discard = () => {
    setDraft(saved);
    save.reset();
  };
  return { draft, set, dirty, customFields, canSave, saveChanges, discard, save, blocker };
}

export type CaseEditorState = ReturnType<typeof useCaseEditor>;
