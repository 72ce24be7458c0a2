/** The suite tree's dialog (a DialogForm): create, rename, move or delete a suite. */
import { Select, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { ManualSuite } from '../../api/queries';
import { DialogForm } from '../../components/DialogForm';
import { flattenTree, possibleParents, suiteTree } from '../../components/suiteTree';
import { useSuiteChange } from './api';
import { DIALOG_TITLES, initialParent, ROOT, suiteChangeOf, type SuiteDialogKind } from './suiteDialogs';

/** The parents a select offers, indented by depth, "(top level)" first. */
function parentOptions(suites: ManualSuite[]) {
  return [
    { value: ROOT, label: 'Top level' },
    ...flattenTree(suiteTree(suites)).map((node) => ({
      value: node.suite._id,
      label: `${'  '.repeat(node.depth)}${node.suite.name}`,
    })),
  ];
}

export function SuiteDialog({
  projectId,
  suites,
  dialog,
  onClose,
  onDeleted,
}: {
  projectId: string;
  suites: ManualSuite[];
  dialog: SuiteDialogKind;
  onClose: () => void;
  onDeleted: (suiteId: string) => void;
}) {
  const [name, setName] = useState(dialog.kind === 'rename' ? dialog.suite.name : '');
  const [parent, setParent] = useState<string>(() => initialParent(dialog));
  const save = useSuiteChange(projectId, () => {
    if (dialog.kind === 'delete') onDeleted(dialog.suite._id);
    onClose();
  });
  return (
    <DialogForm
      title={DIALOG_TITLES[dialog.kind]}
      onClose={onClose}
      onSubmit={() => save.mutate(suiteChangeOf(dialog, name, parent))}
      pending={save.isPending}
      error={save.error}
      submit={dialog.kind === 'delete' ? 'Delete' : dialog.kind === 'create' ? 'Create' : 'Save'}
      disabled={(dialog.kind === 'create' || dialog.kind === 'rename') && name.trim() === ''}
      danger={dialog.kind === 'delete'}
    >
      <SuiteDialogFields
        suites={suites}
        dialog={dialog}
        name={name}
        setName={setName}
        parent={parent}
        setParent={setParent}
      />
    </DialogForm>
  );
}

function SuiteDialogFields({
  suites,
  dialog,
  name,
  setName,
  parent,
  setParent,
}: {
  suites: ManualSuite[];
  dialog: SuiteDialogKind;
  name: string;
  setName: (name: string) => void;
  parent: string;
  setParent: (parent: string) => void;
}) {
  return (
    <>
      {dialog.kind === 'create' || dialog.kind === 'rename' ? (
        <TextInput
          label="Name"
          required
          data-autofocus
          maxLength={500}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
        />
      ) : null}
      {dialog.kind === 'create' || dialog.kind === 'move' ? (
        <Select
          label="Parent suite"
          data={parentOptions(dialog.kind === 'move' ? possibleParents(suites, dialog.suite._id) : suites)}
          value={parent}
          onChange={(value) => setParent(value ?? ROOT)}
          allowDeselect={false}
          searchable
        />
      ) : null}
      {dialog.kind === 'delete' ? (
        <Text size="sm">
          Delete the suite “{dialog.suite.name}”? Only an empty suite can be deleted: move its cases and
          sub-suites out first.
        </Text>
      ) : null}
    </>
  );
}
