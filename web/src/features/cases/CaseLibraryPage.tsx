/**
 * The test case library (spec §4.3): the suites as a tree beside the cases, listed with every filter and
 * sort of the API, a page at a time; a writer creates cases and acts on a selection of them at once (move
 * to a suite, set a field, add a tag).
 */
import { Button, Grid, Group, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useState } from 'react';
import { manualCasesQuery, manualSuitesQuery } from '../../api/manual';
import type { ManualCase, ManualSuite } from '../../api/queries';
import { useCanWrite } from '../../api/role';
import { FilterBar, type FilterField } from '../../components/FilterBar';
import { ListFooter } from '../../components/ListPages';
import { CASE_FIELDS, FIELD_LABELS, optionsOf, type CaseField } from '../../components/manualValues';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { BulkActions } from './BulkActions';
import { casesQueryOf, PAGE_SIZE } from './casesQuery';
import { CaseTable } from './CaseTable';
import { NewCaseDialog } from './NewCaseDialog';
import { UNASSIGNED, type CasesSearch } from './search';
import { SuiteTree } from './SuiteTree';
import { useCaseSelection, type CaseSelection } from './useCaseSelection';

const route = getRouteApi('/signed-in/projects/$projectId/cases');

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

export function CaseLibraryPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const canWrite = useCanWrite(projectId);
  const { cases, suites, currentSuite } = useLibraryData(projectId, search);
  const selection = useCaseSelection();
  const { setSearch, selectSuite, goToPage } = useLibrarySearch(selection.clear);

  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 3 }}>
        <Suites
          projectId={projectId}
          suites={suites}
          selected={search.suite}
          onSelect={selectSuite}
          canWrite={canWrite}
        />
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 9 }}>
        <Stack>
          <LibraryTitle
            projectId={projectId}
            suite={currentSuite}
            unassigned={search.suite === UNASSIGNED}
            canWrite={canWrite}
          />
          <FilterBar fields={FILTERS} values={search} onChange={setSearch} />
          {canWrite && selection.selected.size > 0 && suites.data ? (
            <BulkActions
              projectId={projectId}
              cases={(cases.data?.data ?? []).filter((row) => selection.selected.has(row._id))}
              suites={suites.data}
              onDone={selection.clear}
            />
          ) : null}
          <CaseList
            projectId={projectId}
            cases={cases}
            canWrite={canWrite}
            selection={selection}
            search={search}
            setSearch={setSearch}
            onPage={goToPage}
          />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

/** The page of cases the search asks for (the previous one kept while it loads), the suites, the current suite. */
function useLibraryData(projectId: string, search: CasesSearch) {
  const cases = useQuery({
    ...manualCasesQuery(projectId, casesQueryOf(search)),
    placeholderData: keepPreviousData,
  });
  const suites = useQuery(manualSuitesQuery(projectId));
  const currentSuite =
    search.suite && search.suite !== UNASSIGNED
      ? suites.data?.find((suite) => suite._id === search.suite)
      : undefined;
  return { cases, suites, currentSuite };
}

/** Changes of the page's search parameters: a filter, sort or suite goes back to page 1; each empties the selection. */
function useLibrarySearch(clearSelection: () => void) {
  const navigate = useNavigate({ from: '/projects/$projectId/cases' });
  const setSearch = useCallback(
    (changes: Partial<CasesSearch>) => {
      clearSelection();
      void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) });
    },
    [navigate, clearSelection],
  );
  const selectSuite = useCallback((suite: string | undefined) => setSearch({ suite }), [setSearch]);
  const goToPage = (page: number | undefined) => {
    clearSelection();
    void navigate({ search: (previous) => ({ ...previous, page }) });
  };
  return { setSearch, selectSuite, goToPage };
}

function Suites({
  projectId,
  suites,
  selected,
  onSelect,
  canWrite,
}: {
  projectId: string;
  suites: UseQueryResult<ManualSuite[]>;
  selected: string | undefined;
  onSelect: (suite: string | undefined) => void;
  canWrite: boolean;
}) {
  return suites.isPending ? (
    <LoadingState label="Loading suites…" rows={3} />
  ) : suites.isError ? (
    <ErrorState error={suites.error} onRetry={() => void suites.refetch()} />
  ) : (
    <SuiteTree
      projectId={projectId}
      suites={suites.data}
      selected={selected}
      onSelect={onSelect}
      canWrite={canWrite}
    />
  );
}

/** The library's title (and suite), and for a writer "New case" with its dialog. */
function LibraryTitle({
  projectId,
  suite,
  unassigned,
  canWrite,
}: {
  projectId: string;
  suite: ManualSuite | undefined;
  unassigned: boolean;
  canWrite: boolean;
}) {
  const [creating, setCreating] = useState(false);
  return (
    <>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Test cases
          {suite ? (
            <Text span inherit c="dimmed">
              {' '}
              · {suite.name}
            </Text>
          ) : unassigned ? (
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
      {creating ? (
        <NewCaseDialog
          projectId={projectId}
          suiteId={suite?._id ?? null}
          onClose={() => setCreating(false)}
        />
      ) : null}
    </>
  );
}

/** The page of cases (or why there is none), its count and its pages. */
function CaseList({
  projectId,
  cases,
  canWrite,
  selection,
  search,
  setSearch,
  onPage,
}: {
  projectId: string;
  cases: UseQueryResult<{ data: ManualCase[]; pagination: { total: number } }>;
  canWrite: boolean;
  selection: CaseSelection;
  search: CasesSearch;
  setSearch: (changes: Partial<CasesSearch>) => void;
  onPage: (page: number | undefined) => void;
}) {
  const { size } = selection.selected;
  if (cases.isPending) return <LoadingState label="Loading test cases…" />;
  if (cases.isError) return <ErrorState error={cases.error} onRetry={() => void cases.refetch()} />;
  const rows = cases.data.data;
  if (rows.length === 0)
    return (
      <EmptyState title="No test case here">
        {canWrite
          ? 'Clear a filter, pick another suite, or create a case with “New case”.'
          : 'Clear a filter or pick another suite.'}
      </EmptyState>
    );
  return (
    <>
      <CaseTable
        projectId={projectId}
        rows={rows}
        canWrite={canWrite}
        selection={selection}
        search={search}
        setSearch={setSearch}
      />
      <ListFooter
        summary={`${cases.data.pagination.total.toLocaleString()} test cases${size > 0 ? ` · ${size} selected` : ''}`}
        total={cases.data.pagination.total}
        pageSize={PAGE_SIZE}
        page={search.page}
        onPage={onPage}
      />
    </>
  );
}
