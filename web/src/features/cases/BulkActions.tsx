/**
 * What a writer does to the selected cases at once: move them to a suite, set a field, add a tag. Each is
 * one PATCH per case; an error says some may have changed already.
 */
import { Alert, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { describeError } from '../../api/client';
import type { ManualCase, ManualSuite } from '../../api/queries';
import { CASE_FIELDS, FIELD_LABELS, optionsOf, type CaseField } from '../../components/manualValues';
import { flattenTree, suiteTree } from '../../components/suiteTree';
import { useBulkEdit } from './api';
import { UNASSIGNED } from './search';

type Apply = ReturnType<typeof useBulkEdit>;

export function BulkActions({
  projectId,
  cases,
  suites,
  onDone,
}: {
  projectId: string;
  cases: ManualCase[];
  suites: ManualSuite[];
  onDone: () => void;
}) {
  const [tag, setTag] = useState('');
  const apply = useBulkEdit(projectId, cases, () => {
    setTag('');
    onDone();
  });
  const error = apply.isError ? describeError(apply.error) : null;
  return (
    <Stack gap="xs" p="sm" bd="1px solid var(--mantine-color-default-border)" style={{ borderRadius: 8 }}>
      <Text size="sm" fw={700} role="status">
        {cases.length} selected
      </Text>
      <Group align="flex-end" gap="lg">
        <MoveToSuite suites={suites} apply={apply} />
        <SetField apply={apply} />
        <AddTag tag={tag} setTag={setTag} apply={apply} />
      </Group>
      {error ? (
        <Alert color="red" variant="light" title={error.title} role="alert">
          {error.message} Some cases may have changed already: the list shows them as they are now.
        </Alert>
      ) : null}
    </Stack>
  );
}

function MoveToSuite({ suites, apply }: { suites: ManualSuite[]; apply: Apply }) {
  const [target, setTarget] = useState<string | null>(null);
  const suiteOptions = [
    { value: UNASSIGNED, label: 'No suite (unassigned)' },
    ...flattenTree(suiteTree(suites)).map((node) => ({
      value: node.suite._id,
      label: `${'  '.repeat(node.depth)}${node.suite.name}`,
    })),
  ];
  return (
    <Group align="flex-end" gap="xs">
      <Select
        label="Move to suite"
        data={suiteOptions}
        value={target}
        onChange={setTarget}
        searchable
        w={200}
        size="xs"
      />
      <Button
        size="xs"
        variant="default"
        disabled={target === null}
        loading={apply.isPending && apply.variables.kind === 'move'}
        onClick={() => apply.mutate({ kind: 'move', suiteId: target === UNASSIGNED ? null : target })}
      >
        Move
      </Button>
    </Group>
  );
}

function SetField({ apply }: { apply: Apply }) {
  const [field, setField] = useState<CaseField>('priority');
  const [value, setValue] = useState<string | null>(null);
  return (
    <Group align="flex-end" gap="xs">
      <Select
        label="Set field"
        data={(Object.keys(CASE_FIELDS) as CaseField[]).map((key) => ({
          value: key,
          label: FIELD_LABELS[key],
        }))}
        value={field}
        onChange={(next) => {
          setField((next as CaseField | null) ?? 'priority');
          setValue(null);
        }}
        allowDeselect={false}
        w={130}
        size="xs"
      />
      <Select
        label="To"
        data={optionsOf(CASE_FIELDS[field])}
        value={value}
        onChange={setValue}
        w={150}
        size="xs"
      />
      <Button
        size="xs"
        variant="default"
        disabled={value === null}
        loading={apply.isPending && apply.variables.kind === 'set'}
        onClick={() => value !== null && apply.mutate({ kind: 'set', field, value })}
      >
        Set
      </Button>
    </Group>
  );
}

function AddTag({ tag, setTag, apply }: { tag: string; setTag: (tag: string) => void; apply: Apply }) {
  return (
    <Group align="flex-end" gap="xs">
      <TextInput
        label="Add tag"
        value={tag}
        maxLength={100}
        onChange={(event) => setTag(event.currentTarget.value)}
        w={150}
        size="xs"
      />
      <Button
        size="xs"
        variant="default"
        disabled={tag.trim() === '' || tag.includes(',')}
        loading={apply.isPending && apply.variables.kind === 'tag'}
        onClick={() => apply.mutate({ kind: 'tag', tag: tag.trim() })}
      >
        Add
      </Button>
    </Group>
  );
}
