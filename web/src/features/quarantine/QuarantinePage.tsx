/**
 * Quarantine (issue 32): the project's quarantined tests, active first view, then those expiring within a
 * week, expired and lifted ones; filtered by owner, with the view, owner and page in the URL. Members and
 * above extend and lift active quarantines. A quarantined test's failures with one of its forgiven errors
 * do not fail the quality gate.
 */
import { Group, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { quarantinesQuery } from '../../api/quarantines';
import { useCanWrite } from '../../api/role';
import { AssigneeSelect } from '../../components/AssigneeSelect';
import { ListFooter } from '../../components/ListPages';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { ExtendDialog, LiftDialog } from './QuarantineDialogs';
import { QuarantineTable, type QuarantineAction } from './QuarantineTable';
import { QUARANTINE_VIEWS, type QuarantineSearch, type QuarantineView } from './search';
import { EMPTY, PAGE_SIZE, quarantinesOf, VIEW_LABELS } from './views';

const route = getRouteApi('/signed-in/projects/$projectId/quarantine');

export function QuarantinePage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/quarantine' });
  const canWrite = useCanWrite(projectId);
  const [action, setAction] = useState<QuarantineAction | null>(null);
  const list = useQuery({
    ...quarantinesQuery(projectId, quarantinesOf(search)),
    placeholderData: keepPreviousData,
  });
  const view = search.view ?? 'active';
  const setSearch = (changes: Partial<QuarantineSearch>) =>
    void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) });

  return (
    <Stack>
      <Title order={1} size="h2">
        Quarantine
      </Title>
      <Text size="sm" c="dimmed">
        A quarantined test’s failures with one of the errors it forgives do not fail the quality gate; a
        failure with another error still counts. Each quarantine has an owner and ends on its expiry.
      </Text>
      <Group gap="md" align="flex-end">
        <SegmentedControl
          aria-label="Quarantines to show"
          value={view}
          data={QUARANTINE_VIEWS.map((value) => ({ value, label: VIEW_LABELS[value] }))}
          onChange={(value) =>
            setSearch({ view: value === 'active' ? undefined : (value as QuarantineView) })
          }
        />
        <AssigneeSelect
          projectId={projectId}
          label="Owner"
          placeholder="Any owner"
          w={220}
          value={search.owner ?? null}
          onChange={(owner) => setSearch({ owner: owner ?? undefined })}
        />
      </Group>
      {list.isPending ? (
        <LoadingState label="Loading the quarantines…" />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <EmptyState title={search.owner ? 'No quarantine of this owner here' : 'Nothing here'}>
          {search.owner ? 'Pick another owner, or any owner.' : EMPTY[view]}
        </EmptyState>
      ) : (
        <>
          <QuarantineTable
            quarantines={list.data.data}
            projectId={projectId}
            canWrite={canWrite}
            onAction={setAction}
          />
          <ListFooter
            summary={`${list.data.pagination.total.toLocaleString()} quarantines`}
            total={list.data.pagination.total}
            pageSize={PAGE_SIZE}
            page={search.page}
            onPage={(page) => void navigate({ search: (previous) => ({ ...previous, page }) })}
          />
        </>
      )}
      {action?.kind === 'extend' ? (
        <ExtendDialog projectId={projectId} quarantine={action.quarantine} onClose={() => setAction(null)} />
      ) : null}
      {action?.kind === 'lift' ? (
        <LiftDialog projectId={projectId} quarantine={action.quarantine} onClose={() => setAction(null)} />
      ) : null}
    </Stack>
  );
}
