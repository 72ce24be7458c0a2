/**
 * A case's steps in Classic (action, data, expected result) or Gherkin (one line) form, with sub-steps,
 * reordered by dragging a step's handle or from the keyboard (focus the handle, Space to lift, arrows to
 * move, Space to drop, Escape to cancel): dnd-kit's sortable list, which announces each move to screen
 * readers.
 */
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import {
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { ActionIcon, Button, Group, Paper, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { IconGripVertical, IconPlus, IconTrash } from '@tabler/icons-react';
import type { ChangeEvent, ReactNode } from 'react';
import { emptyStep, moved, newKey, type DraftStep, type DraftSubStep, type StepFormat } from './caseDraft';

export function StepsEditor({
  format,
  steps,
  onChange,
  readOnly,
}: {
  format: StepFormat;
  steps: DraftStep[];
  onChange: (steps: DraftStep[]) => void;
  readOnly: boolean;
}) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = steps.findIndex((step) => step.key === active.id);
    const to = steps.findIndex((step) => step.key === over.id);
    if (from >= 0 && to >= 0) onChange(moved(steps, from, to));
  };
  const position = (key: UniqueIdentifier) => steps.findIndex((step) => step.key === key) + 1;
  const update = (index: number, step: DraftStep) => onChange(steps.map((s, i) => (i === index ? step : s)));
  return (
    <Stack gap="xs">
      <DndContext
        sensors={sensors}
        collisionDetection={closestCenter}
        onDragEnd={onDragEnd}
        accessibility={{
          announcements: {
            onDragStart: ({ active }) => `Picked up step ${position(active.id)}.`,
            onDragOver: ({ active, over }) =>
              over ? `Step ${position(active.id)} is over position ${position(over.id)}.` : undefined,
            onDragEnd: ({ active, over }) =>
              over
                ? `Step ${position(active.id)} dropped at position ${position(over.id)}.`
                : `Step ${position(active.id)} dropped.`,
            onDragCancel: ({ active }) => `Moving step ${position(active.id)} was cancelled.`,
          },
          screenReaderInstructions: {
            draggable:
              'To reorder a step, press Space to lift it, the arrow keys to move it, Space again to drop it, or Escape to cancel.',
          },
        }}
      >
        <SortableContext items={steps.map((step) => step.key)} strategy={verticalListSortingStrategy}>
          <Stack gap="xs" component="ol" className="plain-list" aria-label={`${format} steps`}>
            {steps.map((step, index) => (
              <SortableStep
                key={step.key}
                format={format}
                step={step}
                number={index + 1}
                readOnly={readOnly}
                onChange={(next) => update(index, next)}
                onRemove={() => onChange(steps.filter((_, i) => i !== index))}
              />
            ))}
          </Stack>
        </SortableContext>
      </DndContext>
      {steps.length === 0 ? (
        <Text size="sm" c="dimmed">
          No step yet.
        </Text>
      ) : null}
      {readOnly ? null : (
        <Group>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconPlus size={14} aria-hidden />}
            onClick={() => onChange([...steps, emptyStep()])}
          >
            Add step
          </Button>
        </Group>
      )}
    </Stack>
  );
}

type StepText = 'action' | 'data' | 'expectedResult' | 'text';

/** What a step (and each of its sub-steps) holds in each format: the fields of its row. */
const STEP_FIELDS: Record<
  StepFormat,
  readonly { key: StepText; name: string; placeholder: string; multiline: boolean }[]
> = {
  Classic: [
    { key: 'action', name: 'action', placeholder: 'Action', multiline: true },
    { key: 'data', name: 'data', placeholder: 'Data', multiline: true },
    { key: 'expectedResult', name: 'expected result', placeholder: 'Expected result', multiline: true },
  ],
  Gherkin: [{ key: 'text', name: 'text', placeholder: 'Given … / When … / Then …', multiline: false }],
};

/** A step's or a sub-step's fields in its format, each labelled "Step 2.1: action" for screen readers. */
function StepFields({
  format,
  step,
  label,
  readOnly,
  onChange,
}: {
  format: StepFormat;
  step: DraftSubStep;
  label: string;
  readOnly: boolean;
  onChange: (step: DraftSubStep) => void;
}) {
  return (
    <Group gap="xs" align="flex-start" grow style={{ flex: 1 }}>
      {STEP_FIELDS[format].map((field) => {
        const props = {
          'aria-label': `${label}: ${field.name}`,
          placeholder: field.placeholder,
          value: step[field.key],
          readOnly,
          onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
            onChange({ ...step, [field.key]: event.currentTarget.value }),
        };
        return field.multiline ? (
          <Textarea key={field.key} autosize minRows={1} {...props} />
        ) : (
          <TextInput key={field.key} {...props} />
        );
      })}
    </Group>
  );
}

/**
 * One line of the list: its number, its fields, its remove button; a step's line also has its drag handle
 * (`handle`), a sub-step's is indented under its step.
 */
function StepLine({
  format,
  step,
  number,
  readOnly,
  onChange,
  onRemove,
  handle,
}: {
  format: StepFormat;
  step: DraftSubStep;
  number: string;
  readOnly: boolean;
  onChange: (step: DraftSubStep) => void;
  onRemove: () => void;
  handle?: ReactNode;
}) {
  const sub = handle === undefined;
  return (
    <Group gap="xs" pl={sub ? 64 : undefined} wrap="nowrap" align="flex-start">
      {readOnly ? null : handle}
      {sub ? (
        <Text size="xs" c="dimmed" w={32} pt={8} aria-hidden>
          {number}
        </Text>
      ) : (
        <Text size="sm" fw={700} w={24} pt={6} aria-hidden>
          {number}.
        </Text>
      )}
      <StepFields
        format={format}
        step={step}
        label={`Step ${number}`}
        readOnly={readOnly}
        onChange={onChange}
      />
      {readOnly ? null : (
        <ActionIcon variant="subtle" color="red" aria-label={`Remove step ${number}`} onClick={onRemove}>
          <IconTrash size={16} aria-hidden />
        </ActionIcon>
      )}
    </Group>
  );
}

function SortableStep({
  format,
  step,
  number,
  readOnly,
  onChange,
  onRemove,
}: {
  format: StepFormat;
  step: DraftStep;
  number: number;
  readOnly: boolean;
  onChange: (step: DraftStep) => void;
  onRemove: () => void;
}) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } =
    useSortable({ id: step.key, disabled: readOnly });
  const setSub = (index: number, sub: DraftSubStep) =>
    onChange({ ...step, subSteps: step.subSteps.map((s, i) => (i === index ? sub : s)) });
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Transform.toString(transform), transition, zIndex: isDragging ? 1 : undefined }}
      aria-label={`Step ${number}`}
    >
      <Paper withBorder p="xs" shadow={isDragging ? 'md' : undefined}>
        <Stack gap={6}>
          <StepLine
            format={format}
            step={step}
            number={String(number)}
            readOnly={readOnly}
            onChange={(fields) => onChange({ ...step, ...fields })}
            onRemove={onRemove}
            handle={
              <ActionIcon
                ref={setActivatorNodeRef}
                variant="subtle"
                color="gray"
                aria-label={`Move step ${number}`}
                style={{ cursor: 'grab', touchAction: 'none' }}
                {...attributes}
                {...listeners}
              >
                <IconGripVertical size={16} aria-hidden />
              </ActionIcon>
            }
          />
          {step.subSteps.map((sub, index) => (
            <StepLine
              key={sub.key}
              format={format}
              step={sub}
              number={`${number}.${index + 1}`}
              readOnly={readOnly}
              onChange={(next) => setSub(index, next)}
              onRemove={() => onChange({ ...step, subSteps: step.subSteps.filter((_, i) => i !== index) })}
            />
          ))}
          {readOnly ? null : (
            <Group pl={64}>
              <Button
                size="compact-xs"
                variant="subtle"
                leftSection={<IconPlus size={12} aria-hidden />}
                onClick={() =>
                  onChange({
                    ...step,
                    subSteps: [
                      ...step.subSteps,
                      { key: newKey(), action: '', data: '', expectedResult: '', text: '' },
                    ],
                  })
                }
              >
                Add sub-step to step {number}
              </Button>
            </Group>
          )}
        </Stack>
      </Paper>
    </li>
  );
}
