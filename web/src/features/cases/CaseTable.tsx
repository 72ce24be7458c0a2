/**
 * A page of the library's cases as a table, sortable by its headers; for a writer each row and the page can
 * be selected for the bulk actions.
 */
import { Badge, Checkbox, Table } from '@mantine/core';
import { createLink } from '@tanstack/react-router';
import { memo, type ComponentPropsWithRef } from 'react';
import type { ManualCase } from '../../api/queries';
import { formatAgo, formatTime } from '../../components/format';
import { labelOf } from '../../components/manualValues';
import { SortHeader } from '../../components/SortHeader';
import type { Sort } from './casesQuery';
import classes from './manual.module.css';
import type { CasesSearch } from './search';
import type { CaseSelection } from './useCaseSelection';

const COLUMNS: [label: string, column: Sort][] = [
  ['ID', 'caseId'],
  ['Title', 'title'],
  ['Status', 'status'],
  ['Severity', 'severity'],
  ['Priority', 'priority'],
  ['Type', 'type'],
  ['Automation', 'automationStatus'],
  ['Updated', 'updatedAt'],
];

export function CaseTable({
  projectId,
  rows,
  canWrite,
  selection,
  search,
  setSearch,
}: {
  projectId: string;
  rows: ManualCase[];
  canWrite: boolean;
  selection: CaseSelection;
  search: CasesSearch;
  setSearch: (changes: Partial<CasesSearch>) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table striped highlightOnHover aria-label="Manual test cases">
        <Table.Thead>
          <HeaderRow
            rows={rows}
            canWrite={canWrite}
            selection={selection}
            search={search}
            setSearch={setSearch}
          />
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <CaseRow
              key={row._id}
              projectId={projectId}
              row={row}
              selectable={canWrite}
              selected={selection.selected.has(row._id)}
              onToggle={selection.toggle}
            />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function HeaderRow({
  rows,
  canWrite,
  selection,
  search,
  setSearch,
}: {
  rows: ManualCase[];
  canWrite: boolean;
  selection: CaseSelection;
  search: CasesSearch;
  setSearch: (changes: Partial<CasesSearch>) => void;
}) {
  const sortBy = search.sortBy ?? 'caseId';
  const order = search.order ?? 'asc';
  const onSort = (column: Sort) =>
    setSearch({ sortBy: column, order: sortBy === column && order === 'asc' ? 'desc' : 'asc' });
  return (
    <Table.Tr>
      {canWrite ? <SelectPage rows={rows} selection={selection} /> : null}
      {COLUMNS.map(([label, column]) => (
        <SortHeader
          key={column}
          label={label}
          active={sortBy === column}
          order={order}
          onSort={() => onSort(column)}
        />
      ))}
    </Table.Tr>
  );
}

function SelectPage({ rows, selection }: { rows: ManualCase[]; selection: CaseSelection }) {
  const { selected } = selection;
  const allSelected = rows.length > 0 && rows.every((row) => selected.has(row._id));
  return (
    <Table.Th w={36}>
      <Checkbox
        aria-label="Select every case of this page"
        checked={allSelected}
        indeterminate={!allSelected && rows.some((row) => selected.has(row._id))}
        onChange={() => selection.set(allSelected ? new Set() : new Set(rows.map((row) => row._id)))}
      />
    </Table.Th>
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
        <CaseTitle projectId={projectId} row={row} />
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

/** The case's title (its editor's link), suite, tags and flaky and muted marks. */
function CaseTitle({ projectId, row }: { projectId: string; row: ManualCase }) {
  const { automation } = row;
  return (
    <>
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
    </>
  );
}
