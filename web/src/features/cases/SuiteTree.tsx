/**
 * The library's suite tree: every suite nested under its parent, with its case count; "All cases" and
 * "Unassigned" above. A writer gets each suite's actions (new sub-suite, rename, move, delete) in a menu and
 * a "New suite" button; the dialog below (a DialogForm) does the create, rename, move and delete.
 */
import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Menu,
  NavLink,
  Select,
  Stack,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { IconDots, IconFolder, IconFolderPlus } from '@tabler/icons-react';
import { memo, useState } from 'react';
import type { ManualSuite } from '../../api/queries';
import { DialogForm } from '../../components/DialogForm';
import { flattenTree, possibleParents, suiteTree, type SuiteNode } from '../../components/suiteTree';
import { useSuiteChange, type SuiteChange } from './api';
import classes from './manual.module.css';

export const UNASSIGNED = 'unassigned';

type Dialog =
  | { kind: 'create'; parentId: string | null }
  | { kind: 'rename'; suite: ManualSuite }
  | { kind: 'move'; suite: ManualSuite }
  | { kind: 'delete'; suite: ManualSuite };

/** Memoised: the library re-renders on every filter, the tree only when the suites or the choice change. */
export const SuiteTree = memo(function SuiteTree({
  projectId,
  suites,
  selected,
  onSelect,
  canWrite,
}: {
  projectId: string;
  suites: ManualSuite[];
  selected: string | undefined;
  onSelect: (suite: string | undefined) => void;
  canWrite: boolean;
}) {
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const roots = suiteTree(suites);

  // A row per suite: the suite's link, and beside it (not inside it: no control nests in another) its menu.
  const renderNode = (node: SuiteNode<ManualSuite>) => (
    <li key={node.suite._id}>
      <Group gap={2} wrap="nowrap" pl={node.depth * 14}>
        <NavLink
          component="button"
          label={node.suite.name}
          rightSection={
            <Badge size="xs" variant="light" color="gray">
              <VisuallyHidden>cases: </VisuallyHidden>
              {node.suite.caseCount}
            </Badge>
          }
          leftSection={<IconFolder size={16} aria-hidden />}
          active={selected === node.suite._id}
          aria-current={selected === node.suite._id ? 'true' : undefined}
          onClick={() => onSelect(node.suite._id)}
          noWrap
          style={{ flex: 1 }}
        />
        {canWrite ? <SuiteMenu suite={node.suite} onChoose={(next) => setDialog(next)} /> : null}
      </Group>
      {node.children.length > 0 ? <ul className={classes.tree}>{node.children.map(renderNode)}</ul> : null}
    </li>
  );

  return (
    <Stack gap={4} component="nav" aria-label="Suites">
      <Group justify="space-between">
        <Text fw={700} size="sm">
          Suites
        </Text>
        {canWrite ? (
          <Button
            size="compact-xs"
            variant="default"
            leftSection={<IconFolderPlus size={14} aria-hidden />}
            onClick={() => setDialog({ kind: 'create', parentId: null })}
          >
            New suite
          </Button>
        ) : null}
      </Group>
      <NavLink
        component="button"
        label="All cases"
        active={selected === undefined}
        aria-current={selected === undefined ? 'true' : undefined}
        onClick={() => onSelect(undefined)}
      />
      <NavLink
        component="button"
        label="Unassigned"
        active={selected === UNASSIGNED}
        aria-current={selected === UNASSIGNED ? 'true' : undefined}
        onClick={() => onSelect(UNASSIGNED)}
      />
      <ul className={classes.tree}>{roots.map(renderNode)}</ul>
      {dialog ? (
        <SuiteDialog
          projectId={projectId}
          suites={suites}
          dialog={dialog}
          onClose={() => setDialog(null)}
          onDeleted={(suiteId) => selected === suiteId && onSelect(undefined)}
        />
      ) : null}
    </Stack>
  );
});

function SuiteMenu({ suite, onChoose }: { suite: ManualSuite; onChoose: (dialog: Dialog) => void }) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" size="sm" aria-label={`Actions of suite ${suite.name}`}>
          <IconDots size={14} aria-hidden />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => onChoose({ kind: 'create', parentId: suite._id })}>New sub-suite</Menu.Item>
        <Menu.Item onClick={() => onChoose({ kind: 'rename', suite })}>Rename</Menu.Item>
        <Menu.Item onClick={() => onChoose({ kind: 'move', suite })}>Move</Menu.Item>
        <Menu.Item color="red" onClick={() => onChoose({ kind: 'delete', suite })}>
          Delete
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

const ROOT = '(top level)';

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

function SuiteDialog({
  projectId,
  suites,
  dialog,
  onClose,
  onDeleted,
}: {
  projectId: string;
  suites: ManualSuite[];
  dialog: Dialog;
  onClose: () => void;
  onDeleted: (suiteId: string) => void;
}) {
  const [name, setName] = useState(dialog.kind === 'rename' ? dialog.suite.name : '');
  const [parent, setParent] = useState<string>(
    dialog.kind === 'create'
      ? (dialog.parentId ?? ROOT)
      : dialog.kind === 'move'
        ? (dialog.suite.parentId ?? ROOT)
        : ROOT,
  );
  const save = useSuiteChange(projectId, () => {
    if (dialog.kind === 'delete') onDeleted(dialog.suite._id);
    onClose();
  });
  const change = (): SuiteChange => {
    const parentId = parent === ROOT ? null : parent;
    if (dialog.kind === 'create') return { kind: 'create', name, parentId };
    const suiteId = dialog.suite._id;
    if (dialog.kind === 'delete') return { kind: 'delete', suiteId };
    return dialog.kind === 'rename' ? { kind: 'rename', suiteId, name } : { kind: 'move', suiteId, parentId };
  };
  const title = {
    create: 'New suite',
    rename: 'Rename suite',
    move: 'Move suite',
    delete: 'Delete suite',
  }[dialog.kind];
  return (
    <DialogForm
      title={title}
      onClose={onClose}
      onSubmit={() => save.mutate(change())}
      pending={save.isPending}
      error={save.error}
      submit={dialog.kind === 'delete' ? 'Delete' : dialog.kind === 'create' ? 'Create' : 'Save'}
      disabled={(dialog.kind === 'create' || dialog.kind === 'rename') && name.trim() === ''}
      danger={dialog.kind === 'delete'}
    >
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
    </DialogForm>
  );
}
