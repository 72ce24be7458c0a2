/**
 * The library's suite tree: every suite nested under its parent, with its case count; "All cases" and
 * "Unassigned" above. A writer gets each suite's actions (new sub-suite, rename, move, delete) in a menu and
 * a "New suite" button; the dialog below (a DialogForm) does the create, rename, move and delete.
 */
import { ActionIcon, Badge, Button, Group, Menu, NavLink, Stack, Text, VisuallyHidden } from '@mantine/core';
import { IconDots, IconFolder, IconFolderPlus } from '@tabler/icons-react';
import { memo, useState } from 'react';
import type { ManualSuite } from '../../api/queries';
import { suiteTree, type SuiteNode } from '../../components/suiteTree';
import classes from './manual.module.css';
import { UNASSIGNED } from './search';
import { SuiteDialog } from './SuiteDialog';
import type { SuiteDialogKind } from './suiteDialogs';

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
  const [dialog, setDialog] = useState<SuiteDialogKind | null>(null);
  const roots = suiteTree(suites);
  const node = (suite: SuiteNode<ManualSuite>) => (
    <SuiteItem
      key={suite.suite._id}
      node={suite}
      selected={selected}
      onSelect={onSelect}
      onChoose={canWrite ? setDialog : null}
    />
  );

  return (
    <Stack gap={4} component="nav" aria-label="Suites">
      <SuitesHeading canWrite={canWrite} onNew={() => setDialog({ kind: 'create', parentId: null })} />
      <FixedEntries selected={selected} onSelect={onSelect} />
      <ul className={classes.tree}>{roots.map(node)}</ul>
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

/** "All cases" and "Unassigned", above the suites. */
function FixedEntries({
  selected,
  onSelect,
}: {
  selected: string | undefined;
  onSelect: (suite: string | undefined) => void;
}) {
  return (
    <>
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
    </>
  );
}

function SuitesHeading({ canWrite, onNew }: { canWrite: boolean; onNew: () => void }) {
  return (
    <Group justify="space-between">
      <Text fw={700} size="sm">
        Suites
      </Text>
      {canWrite ? (
        <Button
          size="compact-xs"
          variant="default"
          leftSection={<IconFolderPlus size={14} aria-hidden />}
          onClick={onNew}
        >
          New suite
        </Button>
      ) : null}
    </Group>
  );
}

/** A row per suite: the suite's link, and beside it (not inside it: no control nests in another) its menu. */
function SuiteItem({
  node,
  selected,
  onSelect,
  onChoose,
}: {
  node: SuiteNode<ManualSuite>;
  selected: string | undefined;
  onSelect: (suite: string | undefined) => void;
  /** Null for a reader: no menu. */
  onChoose: ((dialog: SuiteDialogKind) => void) | null;
}) {
  return (
    <li>
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
        {onChoose ? <SuiteMenu suite={node.suite} onChoose={onChoose} /> : null}
      </Group>
      {node.children.length > 0 ? (
        <ul className={classes.tree}>
          {node.children.map((child) => (
            <SuiteItem
              key={child.suite._id}
              node={child}
              selected={selected}
              onSelect={onSelect}
              onChoose={onChoose}
            />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function SuiteMenu({ suite, onChoose }: { suite: ManualSuite; onChoose: (dialog: SuiteDialogKind) => void }) {
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
