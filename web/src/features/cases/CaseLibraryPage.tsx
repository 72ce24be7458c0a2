/**
 * The test case library (spec §4.3): the suites as a tree beside the cases, listed with every filter and
 * sort of the API, a page at a time; a writer creates cases and acts on a selection of them at once (move
 * to a suite, set a field, add a tag).
 */
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Grid,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createLink, getRouteApi, useNavigate } from '@tanstack/react-router';
import { memo, useCallback, useState, type ComponentPropsWithRef } from 'react';
import { describeError } from '../../api/client';
import { DialogForm } from '../../components/DialogForm';
import { type ManualCase, type ManualCaseQuery, type ManualSuite } from '../../api/queries';
import { manualCasesQuery, manualSuitesQuery } from '../../api/manual';
import { useCanWrite } from '../../api/role';
import { FilterBar, type FilterField } from '../../components/FilterBar';
import { ListFooter } from '../../components/ListPages';
import { formatAgo, formatTime } from '../../components/format';
import { SortHeader } from '../../components/SortHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import classes from './manual.module.css';
import { SuiteTree, UNASSIGNED } from './SuiteTree';
import { flattenTree, suiteTree } from '../../components/suiteTree';
import { CASE_FIELDS, FIELD_LABELS, labelOf, optionsOf, type CaseField } from '../../components/manualValues';
import { useBulkEdit, useCreateCase } from './api';
import { type CasesSearch } from './search';

const route = getRouteApi('/signed-in/projects/$projectId/cases');

const PAGE_SIZE = 50;
type Sort = NonNullable<CasesSearch['sortBy']>;
const SORT_KEYS: Record<Sort, NonNullable<ManualCaseQuery['sortBy']>> = {
  caseId: 'caseId',
  title: 'title',
  updatedAt: 'updatedAt',
  status: 'classification.status',
  severity: 'classification.severity',
  priority: 'classification.priority',
  type: 'classification.type',
  automationStatus: 'automation.status',
};

const YES_NO = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
];
/** Every filter of the API (spec §4.3) but the suite, which the tree beside the list picks. */
const FILTERS: FilterField<keyof CasesSearch>[] = [
  {
    kind: 'text',
    key: 'search',
    label: 'Search',
    placeholder: 'Title, description or ID (press /)',
    width: 240,
    main: true,
  },
  ...(Object.keys(CASE_FIELDS) as CaseField[]).map((field): FilterField<CaseField> => ({
    kind: 'select',
    key: field,
    label: FIELD_LABELS[field],
    placeholder: 'Any',
    options: optionsOf(CASE_FIELDS[field]),
    width: 130,
  })),
  { kind: 'select', key: 'flaky', label: 'Flaky', placeholder: 'Any', options: YES_NO, width: 90 },
  { kind: 'select', key: 'muted', label: 'Muted', placeholder: 'Any', options: YES_NO, width: 90 },
  { kind: 'text', key: 'tags', label: 'Tags', placeholder: 'Any of, comma-separated', width: 200 },
];

/** The API's query for the page's search parameters. */
function casesQueryOf(search: CasesSearch): ManualCaseQuery {
  const { page, suite, flaky, muted, order, sortBy, ...filters } = search;
  const query: ManualCaseQuery = { page: page ?? 1, limit: PAGE_SIZE };
  for (const [key, value] of Object.entries(filters)) {
    if (value !== undefined) Object.assign(query, { [key]: value });
  }
  if (suite) query.suiteId = suite === UNASSIGNED ? 'null' : suite;
  if (flaky) query.isFlaky = flaky;
  if (muted) query.isMuted = muted;
  if (sortBy) query.sortBy = SORT_KEYS[sortBy];
  if (order) query.sortOrder = order;
  return query;
}

export function CaseLibraryPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/cases' });
  const canWrite = useCanWrite(projectId);
  const cases = useQuery({
    ...manualCasesQuery(projectId, casesQueryOf(search)),
    placeholderData: keepPreviousData,
  });
  const suites = useQuery(manualSuitesQuery(projectId));
  const [selection, setSelection] = useState<ReadonlySet<string>>(new Set());
  const [creating, setCreating] = useState(false);

  // A change of the list empties the selection; an empty one stays as it is (no render for nothing).
  const clearSelection = useCallback(
    () => setSelection((previous) => (previous.size === 0 ? previous : new Set())),
    [],
  );
  const setSearch = useCallback(
    (changes: Partial<CasesSearch>) => {
      clearSelection();
      void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) });
    },
    [navigate, clearSelection],
  );
  const selectSuite = useCallback((suite: string | undefined) => setSearch({ suite }), [setSearch]);
  const sortBy = search.sortBy ?? 'caseId';
  const order = search.order ?? 'asc';
  const sort = (column: Sort) =>
    setSearch({ sortBy: column, order: sortBy === column && order === 'asc' ? 'desc' : 'asc' });
  const header = (label: string, column: Sort) => (
    <SortHeader label={label} active={sortBy === column} order={order} onSort={() => sort(column)} />
  );

  const rows = cases.data?.data ?? [];
  const allSelected = rows.length > 0 && rows.every((row) => selection.has(row._id));
  // Stable, so that a row re-renders only when its case or its selection changes (CaseRow is memoised).
  const toggle = useCallback(
    (id: string) =>
      setSelection((previous) => {
        const next = new Set(previous);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const currentSuite =
    search.suite && search.suite !== UNASSIGNED
      ? suites.data?.find((suite) => suite._id === search.suite)
      : undefined;

  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 3 }}>
        {suites.isPending ? (
          <LoadingState label="Loading suites…" rows={3} />
        ) : suites.isError ? (
          <ErrorState error={suites.error} onRetry={() => void suites.refetch()} />
        ) : (
          <SuiteTree
            projectId={projectId}
            suites={suites.data}
            selected={search.suite}
            onSelect={selectSuite}
            canWrite={canWrite}
          />
        )}
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 9 }}>
        <Stack>
          <Group justify="space-between">
            <Title order={1} size="h2">
              Test cases
              {currentSuite ? (
                <Text span inherit c="dimmed">
                  {' '}
                  · {currentSuite.name}
                </Text>
              ) : search.suite === UNASSIGNED ? (
                <Text span inherit c="dimmed">
                  {' '}
                  · Unassigned
                </Text>
              ) : null}
            </Title>
            {canWrite ? (
              <Button
                variant="default"
                leftSection={<IconPlus size={16} aria-hidden />}
                onClick={() => setCreating(true)}
              >
                New case
              </Button>
            ) : null}
          </Group>
          <FilterBar fields={FILTERS} values={search} onChange={setSearch} />
          {canWrite && selection.size > 0 && suites.data ? (
            <BulkActions
              projectId={projectId}
              cases={rows.filter((row) => selection.has(row._id))}
              suites={suites.data}
              onDone={clearSelection}
            />
          ) : null}
          {cases.isPending ? (
            <LoadingState label="Loading test cases…" />
          ) : cases.isError ? (
            <ErrorState error={cases.error} onRetry={() => void cases.refetch()} />
          ) : rows.length === 0 ? (
            <EmptyState title="No test case here">
              {canWrite
                ? 'Clear a filter, pick another suite, or create a case with “New case”.'
                : 'Clear a filter or pick another suite.'}
            </EmptyState>
          ) : (
            <>
              <Table.ScrollContainer minWidth={900}>
                <Table striped highlightOnHover aria-label="Manual test cases">
                  <Table.Thead>
                    <Table.Tr>
                      {canWrite ? (
                        <Table.Th w={36}>
                          <Checkbox
                            aria-label="Select every case of this page"
                            checked={allSelected}
                            indeterminate={!allSelected && rows.some((row) => selection.has(row._id))}
                            onChange={() =>
                              setSelection(allSelected ? new Set() : new Set(rows.map((row) => row._id)))
                            }
                          />
                        </Table.Th>
                      ) : null}
                      {header('ID', 'caseId')}
                      {header('Title', 'title')}
                      {header('Status', 'status')}
                      {header('Severity', 'severity')}
                      {header('Priority', 'priority')}
                      {header('Type', 'type')}
                      {header('Automation', 'automationStatus')}
                      {header('Updated', 'updatedAt')}
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {rows.map((row) => (
                      <CaseRow
                        key={row._id}
                        projectId={projectId}
                        row={row}
                        selectable={canWrite}
                        selected={selection.has(row._id)}
                        onToggle={toggle}
                      />
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <ListFooter
                summary={`${cases.data.pagination.total.toLocaleString()} test cases${selection.size > 0 ? ` · ${selection.size} selected` : ''}`}
                total={cases.data.pagination.total}
                pageSize={PAGE_SIZE}
                page={search.page}
                onPage={(page) => {
                  clearSelection();
                  void navigate({ search: (previous) => ({ ...previous, page }) });
                }}
              />
            </>
          )}
        </Stack>
      </Grid.Col>
      {creating ? (
        <NewCaseDialog
          projectId={projectId}
          suiteId={currentSuite?._id ?? null}
          onClose={() => setCreating(false)}
        />
      ) : null}
    </Grid>
  );
}

/** A plain anchor as a typed router link (a row's title), styled as Mantine's Anchor. */
const RowLink = createLink(function RowAnchor(props: ComponentPropsWithRef<'a'>) {
  return <a {...props} className={`mantine-focus-auto ${classes.rowLink}`} />;
});

/**
 * Memoised: a filter or page change first re-renders the page with the previous rows (kept while the next
 * page loads); those rows need no work then. Plain cells and checkbox (styled by manual.module.css as Mantine
 * styles its own) rather than Mantine's Table.Td, Checkbox, Group, Text and Badge: the next page's 50 rows are
 * most of a search's rendering.
 */
const CaseRow = memo(function CaseRow({
  projectId,
  row,
  selectable,
  selected,
  onToggle,
}: {
  projectId: string;
  row: ManualCase;
  selectable: boolean;
  selected: boolean;
  onToggle: (id: string) => void;
}) {
  const { classification, automation } = row;
  return (
    <tr className={classes.caseRow}>
      {selectable ? (
        <td>
          <input
            type="checkbox"
            className={`mantine-focus-auto ${classes.check}`}
            aria-label={`Select ${row.caseId}`}
            checked={selected}
            onChange={() => onToggle(row._id)}
          />
        </td>
      ) : null}
      <td className="mono">{row.caseId}</td>
      <td className={classes.caseTitle}>
        <RowLink to="/projects/$projectId/cases/$caseId" params={{ projectId, caseId: row._id }}>
          {row.title}
        </RowLink>
        <div className={classes.caseMeta}>
          {row.metadata.suite ? <span className={classes.dimmed}>{row.metadata.suite.name}</span> : null}
          {row.tags.map((tag) => (
            <span key={tag} className={classes.tag}>
              {tag}
            </span>
          ))}
          {automation.isFlaky ? (
            <Badge size="xs" color="orange" variant="light">
              flaky
            </Badge>
          ) : null}
          {automation.isMuted ? (
            <Badge size="xs" color="gray" variant="light">
              muted
            </Badge>
          ) : null}
        </div>
      </td>
      <td>{labelOf(classification.status)}</td>
      <td>{labelOf(classification.severity)}</td>
      <td>{labelOf(classification.priority)}</td>
      <td>{labelOf(classification.type)}</td>
      <td>{labelOf(automation.status)}</td>
      <td className={classes.small} title={formatTime(row.updatedAt)}>
        {formatAgo(row.updatedAt)}
      </td>
    </tr>
  );
});

function BulkActions({
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
  const [target, setTarget] = useState<string | null>(null);
  const [field, setField] = useState<CaseField>('priority');
  const [value, setValue] = useState<string | null>(null);
  const [tag, setTag] = useState('');
  const apply = useBulkEdit(projectId, cases, () => {
    setTag('');
    onDone();
  });
  const error = apply.isError ? describeError(apply.error) : null;
  const suiteOptions = [
    { value: UNASSIGNED, label: 'No suite (unassigned)' },
    ...flattenTree(suiteTree(suites)).map((node) => ({
      value: node.suite._id,
      label: `${'  '.repeat(node.depth)}${node.suite.name}`,
    })),
  ];
  return (
    <Stack gap="xs" p="sm" bd="1px solid var(--mantine-color-default-border)" style={{ borderRadius: 8 }}>
      <Text size="sm" fw={700} role="status">
        {cases.length} selected
      </Text>
      <Group align="flex-end" gap="lg">
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
      </Group>
      {error ? (
        <Alert color="red" variant="light" title={error.title} role="alert">
          {error.message} Some cases may have changed already: the list shows them as they are now.
        </Alert>
      ) : null}
    </Stack>
  );
}

function NewCaseDialog({
  projectId,
  suiteId,
  onClose,
}: {
  projectId: string;
  suiteId: string | null;
  onClose: () => void;
}) {
  const [title, setTitle] = useState('');
  const create = useCreateCase(projectId, onClose);
  return (
    <DialogForm
      title="New test case"
      onClose={onClose}
      onSubmit={() => create.mutate({ title, ...(suiteId ? { suiteId } : {}) })}
      pending={create.isPending}
      error={create.error}
      submit="Create"
      disabled={title.trim() === ''}
    >
      <TextInput
        label="Title"
        required
        data-autofocus
        maxLength={500}
        value={title}
        onChange={(event) => setTitle(event.currentTarget.value)}
      />
    </DialogForm>
  );
}
