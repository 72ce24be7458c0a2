/**
 * The suite tree's dialogs (create, rename, move, delete) as data, and the change each one sends. No I/O.
 */
import type { ManualSuite } from '../../api/queries';
import type { SuiteChange } from './api';

export type SuiteDialogKind =
  | { kind: 'create'; parentId: string | null }
  | { kind: 'rename'; suite: ManualSuite }
  | { kind: 'move'; suite: ManualSuite }
  | { kind: 'delete'; suite: ManualSuite };

/** The parent select's value for the top level. */
export const ROOT = '(top level)';

export const DIALOG_TITLES: Record<SuiteDialogKind['kind'], string> = {
  create: 'New suite',
  rename: 'Rename suite',
  move: 'Move suite',
  delete: 'Delete suite',
};

/** The parent a dialog starts with: the one asked (create), the suite's own (move), else the top level. */
export function initialParent(dialog: SuiteDialogKind): string {
  if (dialog.kind === 'create') return dialog.parentId ?? ROOT;
  return dialog.kind === 'move' ? (dialog.suite.parentId ?? ROOT) : ROOT;
}

/** What submitting the dialog sends, with the name and parent typed in it. */
export function suiteChangeOf(dialog: SuiteDialogKind, name: string, parent: string): SuiteChange {
  const parentId = parent === ROOT ? null : parent;
  if (dialog.kind === 'create') return { kind: 'create', name, parentId };
  const suiteId = dialog.suite._id;
  if (dialog.kind === 'delete') return { kind: 'delete', suiteId };
  return dialog.kind === 'rename' ? { kind: 'rename', suiteId, name } : { kind: 'move', suiteId, parentId };
}
