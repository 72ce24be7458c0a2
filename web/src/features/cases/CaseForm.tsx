/** The case's editable fields as one form: title, prose, steps and classification (saved by the header). */
import {
  Card,
  Checkbox,
  Group,
  JsonInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import type { FormEvent } from 'react';
import { CASE_FIELDS, FIELD_LABELS, optionsOf, type CaseField } from '../../components/manualValues';
import { FLAGS, type StepFormat } from './caseDraft';
import { StepsEditor } from './StepsEditor';
import type { CaseEditorState } from './useCaseEditor';

type FormProps = { editor: CaseEditorState; canWrite: boolean };

export function CaseForm({ editor, canWrite }: FormProps) {
  const { draft, set } = editor;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (editor.canSave) editor.saveChanges();
  };
  return (
    <form id="case-form" onSubmit={submit}>
      <Stack>
        <TextInput
          label="Title"
          required
          maxLength={500}
          value={draft.title}
          readOnly={!canWrite}
          onChange={(event) => set('title', event.currentTarget.value)}
        />
        <Prose editor={editor} canWrite={canWrite} field="description" label="Description" />
        <SimpleGrid cols={2}>
          <Prose editor={editor} canWrite={canWrite} field="preconditions" label="Preconditions" />
          <Prose editor={editor} canWrite={canWrite} field="postconditions" label="Postconditions" />
        </SimpleGrid>
        <CaseSteps editor={editor} canWrite={canWrite} />
        <Classification editor={editor} canWrite={canWrite} />
      </Stack>
    </form>
  );
}

function Prose({
  editor: { draft, set },
  canWrite,
  field: key,
  label,
}: FormProps & { field: 'description' | 'preconditions' | 'postconditions'; label: string }) {
  return (
    <Textarea
      label={label}
      autosize
      minRows={2}
      value={draft[key]}
      readOnly={!canWrite}
      onChange={(event) => set(key, event.currentTarget.value)}
    />
  );
}

function CaseSteps({ editor: { draft, set }, canWrite }: FormProps) {
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Steps
          </Title>
          <SegmentedControl
            aria-label="Step format"
            size="xs"
            data={['Classic', 'Gherkin']}
            value={draft.stepFormat}
            readOnly={!canWrite}
            onChange={(value) => set('stepFormat', value as StepFormat)}
          />
        </Group>
        <StepsEditor
          format={draft.stepFormat}
          steps={draft.stepFormat === 'Classic' ? draft.classic : draft.gherkin}
          onChange={(steps) => set(draft.stepFormat === 'Classic' ? 'classic' : 'gherkin', steps)}
          readOnly={!canWrite}
        />
      </Stack>
    </Card>
  );
}

function Classification({ editor, canWrite }: FormProps) {
  const { draft, set, customFields } = editor;
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={2} size="h4">
          Classification
        </Title>
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          {(Object.keys(CASE_FIELDS) as CaseField[]).map((key) => (
            <FieldSelect
              key={key}
              field={key}
              value={draft[key]}
              onChange={(value) => set(key, value)}
              canWrite={canWrite}
            />
          ))}
        </SimpleGrid>
        <FlagsInput editor={editor} canWrite={canWrite} />
        <TagsInput
          label="Tags"
          placeholder={canWrite ? 'Type a tag, then Enter' : undefined}
          value={draft.tags}
          onChange={(value) => set('tags', value)}
          readOnly={!canWrite}
          maxTags={100}
          splitChars={[',']}
        />
        <JsonInput
          label="Custom fields"
          description='A JSON object, e.g. {"browser": "Safari"}'
          autosize
          minRows={2}
          value={draft.customFields}
          readOnly={!canWrite}
          onChange={(value) => set('customFields', value)}
          error={'error' in customFields ? customFields.error : undefined}
        />
      </Stack>
    </Card>
  );
}

function FieldSelect({
  field: key,
  value,
  onChange,
  canWrite,
}: {
  field: CaseField;
  value: string;
  onChange: (value: string) => void;
  canWrite: boolean;
}) {
  return (
    <Select
      label={FIELD_LABELS[key]}
      data={optionsOf(CASE_FIELDS[key])}
      value={value}
      onChange={(next) => next && onChange(next)}
      allowDeselect={false}
      readOnly={!canWrite}
    />
  );
}

function FlagsInput({ editor: { draft, set }, canWrite }: FormProps) {
  return (
    <Checkbox.Group
      label="Flags"
      value={draft.flags}
      onChange={(value) =>
        canWrite &&
        set(
          'flags',
          FLAGS.filter((flag) => value.includes(flag)),
        )
      }
    >
      <Group mt={4}>
        {FLAGS.map((flag) => (
          <Checkbox key={flag} value={flag} label={flag} disabled={!canWrite} />
        ))}
      </Group>
    </Checkbox.Group>
  );
}
