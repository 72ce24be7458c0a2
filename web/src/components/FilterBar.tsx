import { Group, NumberInput, Select, TextInput } from '@mantine/core';
import { useDebouncedCallback, useHotkeys } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { memo, useRef, type RefObject } from 'react';
import type { FilterField } from './filterFields';

export type { FilterField } from './filterFields';

/** Typing waits this long for a pause before it changes the URL (and asks the API). */
const TYPING_PAUSE_MS = 300;

type Value = string | number | undefined;

/**
 * The filters of a list page, composed from their descriptors and kept in the URL: `values` are the page's
 * search parameters, `onChange` gets the ones a control changed (undefined when cleared). Memoised down to
 * each control, so a filter changed re-renders that control and not the bar; `fields` and `onChange` must
 * be stable (a module constant or memoised, a callback).
 */
export function FilterBar<S extends object>({
  fields,
  values,
  onChange,
}: {
  fields: readonly FilterField<Extract<keyof S, string>>[];
  values: S;
  onChange: (changes: Partial<S>) => void;
}) {
  const main = useRef<HTMLInputElement>(null);
  useHotkeys([['/', () => main.current?.focus()]]);
  const change = onChange as (changes: Record<string, Value>) => void;
  return (
    <Group gap="sm" align="flex-end" role="search">
      {fields.map((field) => (
        <FilterControl
          key={field.key}
          field={field}
          value={(values as Record<string, Value>)[field.key]}
          onChange={change}
          inputRef={field.kind === 'text' && field.main ? main : undefined}
        />
      ))}
    </Group>
  );
}

type Change = (changes: Record<string, Value>) => void;

const FilterControl = memo(function FilterControl({
  field,
  value,
  onChange,
  inputRef,
}: {
  field: FilterField;
  value: Value;
  onChange: Change;
  inputRef: RefObject<HTMLInputElement | null> | undefined;
}) {
  switch (field.kind) {
    case 'text':
      return <TextFilter field={field} value={value} onChange={onChange} inputRef={inputRef} />;
    case 'select':
      return (
        <Select
          label={field.label}
          placeholder={field.placeholder}
          data={field.options}
          value={typeof value === 'string' ? value : null}
          onChange={(next) => onChange({ [field.key]: next ?? undefined })}
          clearable
          searchable={field.searchable}
          w={field.width}
        />
      );
    case 'number':
      return <NumberFilter field={field} value={value} onChange={onChange} />;
  }
});

/** Uncontrolled: a keystroke renders nothing; the URL (and the list) follow once typing pauses. */
function TextFilter({
  field,
  value,
  onChange,
  inputRef,
}: {
  field: Extract<FilterField, { kind: 'text' }>;
  value: Value;
  onChange: Change;
  inputRef: RefObject<HTMLInputElement | null> | undefined;
}) {
  const typed = useDebouncedCallback(
    (text: string) => onChange({ [field.key]: text || undefined }),
    TYPING_PAUSE_MS,
  );
  return (
    <TextInput
      ref={inputRef}
      label={field.label}
      placeholder={field.placeholder}
      leftSection={field.main ? <IconSearch size={14} aria-hidden /> : undefined}
      defaultValue={typeof value === 'string' ? value : ''}
      onChange={(event) => typed(event.currentTarget.value)}
      w={field.width}
    />
  );
}

/** A number is passed on only within its range. */
function NumberFilter({
  field,
  value,
  onChange,
}: {
  field: Extract<FilterField, { kind: 'number' }>;
  value: Value;
  onChange: Change;
}) {
  return (
    <NumberInput
      label={field.label}
      min={field.min}
      max={field.max}
      value={typeof value === 'number' ? value : field.fallback}
      onChange={(next) => {
        if (typeof next === 'number' && next >= field.min && next <= field.max)
          onChange({ [field.key]: next });
      }}
      w={field.width}
    />
  );
}
