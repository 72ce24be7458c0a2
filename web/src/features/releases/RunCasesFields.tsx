import { Group, MultiSelect, SegmentedControl, Select, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { manualCasesQuery, manualSuitesQuery } from '../../api/manual';
import { CASE_FIELDS, FIELD_LABELS, optionsOf, type CaseField } from '../../components/manualValues';
import { flattenTree, suiteTree } from '../../components/suiteTree';
import type { CasesFrom, RunForm } from './runForm';

type Change = (patch: Partial<RunForm>) => void;

const FROM = [
  { value: 'suites', label: 'Suites' },
  { value: 'cases', label: 'Cases' },
  { value: 'filter', label: 'A filter' },
];

const FIELDS = (Object.keys(CASE_FIELDS) as CaseField[]).map((key) => ({
  value: key,
  label: FIELD_LABELS[key],
}));

/** How a new run chooses its cases (suites, cases or a library filter) and that choice. */
export function RunCasesFields({
  projectId,
  form,
  onChange,
}: {
  projectId: string;
  form: RunForm;
  onChange: Change;
}) {
  const suites = useQuery(manualSuitesQuery(projectId));
  const cases = useQuery(manualCasesQuery(projectId, { page: 1, limit: 100 }));
  return (
    <>
      <SegmentedControl
        aria-label="Cases from"
        value={form.from}
        onChange={(next) => onChange({ from: next as CasesFrom })}
        data={FROM}
      />
      {form.from === 'suites' ? (
        <MultiSelect
          label="Suites"
          data={flattenTree(suiteTree(suites.data ?? [])).map((node) => ({
            value: node.suite._id,
            label: `${'  '.repeat(node.depth)}${node.suite.name} (${node.suite.caseCount})`,
          }))}
          value={form.suiteIds}
          onChange={(suiteIds) => onChange({ suiteIds })}
          searchable
        />
      ) : form.from === 'cases' ? (
        <MultiSelect
          label="Cases"
          data={(cases.data?.data ?? []).map((c) => ({ value: c._id, label: `${c.caseId} ${c.title}` }))}
          value={form.caseIds}
          onChange={(caseIds) => onChange({ caseIds })}
          searchable
        />
      ) : (
        <FilterFields form={form} onChange={onChange} />
      )}
    </>
  );
}

/** A library filter: one field's value and tags (any of). */
function FilterFields({ form, onChange }: { form: RunForm; onChange: Change }) {
  return (
    <Group grow align="flex-end">
      <Select
        label="Field"
        data={FIELDS}
        value={form.field}
        onChange={(next) => onChange({ field: (next as CaseField | null) ?? 'priority', value: null })}
        allowDeselect={false}
      />
      <Select
        label="Is"
        data={optionsOf(CASE_FIELDS[form.field])}
        value={form.value}
        onChange={(value) => onChange({ value })}
        clearable
      />
      <TextInput
        label="Tags (any of)"
        value={form.tags}
        onChange={(e) => onChange({ tags: e.currentTarget.value })}
      />
    </Group>
  );
}
