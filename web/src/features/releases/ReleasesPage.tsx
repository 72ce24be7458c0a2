/**
 * Manual runs and releases (spec §4.4, §4.5): releases with their due dates, runs and combined progress;
 * every manual run with its progress; exploratory sessions (charter, notes, findings). A writer creates a
 * run from suites, from chosen cases or from a filter of the library, creates releases and sessions, and
 * moves a session along (start, complete) with its notes and findings.
 */
import { Button, Group, SimpleGrid, Stack, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { manualRunsQuery, releasesQuery } from '../../api/manual';
import type { ManualRunSummary, Release } from '../../api/queries';
import { useCanWrite } from '../../api/role';
import { sessionsQuery } from '../sessions/api';
import { NewSessionDialog } from '../sessions/NewSessionDialog';
import { SessionCard } from '../sessions/SessionCard';
import { ListSection } from './ListSection';
import { NewReleaseDialog } from './NewReleaseDialog';
import { NewRunDialog } from './NewRunDialog';
import { ReleaseCard } from './ReleaseCard';
import { RunsTable } from './RunsTable';

const route = getRouteApi('/signed-in/projects/$projectId/releases');

type NewThing = 'run' | 'release' | 'session';

const NEW_BUTTONS: [NewThing, string][] = [
  ['run', 'New run'],
  ['release', 'New release'],
  ['session', 'New session'],
];

export function ReleasesPage() {
  const { projectId } = route.useParams();
  const canWrite = useCanWrite(projectId);
  const runs = useQuery(manualRunsQuery(projectId));
  const releases = useQuery(releasesQuery(projectId));
  const sessions = useQuery(sessionsQuery(projectId));
  const [dialog, setDialog] = useState<NewThing | null>(null);
  return (
    <Stack gap="xl">
      <Group justify="space-between">
        <Title order={1} size="h2">
          Manual runs and releases
        </Title>
        {canWrite ? <NewButtons onNew={setDialog} /> : null}
      </Group>
      <ListSection title="Releases" query={releases} empty="No release yet.">
        {(items) => <ReleaseCards projectId={projectId} releases={items} runs={runs.data ?? []} />}
      </ListSection>
      <ListSection title="Runs" query={runs} empty="No manual run yet.">
        {(items) => <RunsTable projectId={projectId} runs={items} />}
      </ListSection>
      <ListSection title="Exploratory sessions" query={sessions} empty="No exploratory session yet.">
        {(items) => (
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {items.map((session) => (
              <SessionCard key={session._id} projectId={projectId} session={session} canWrite={canWrite} />
            ))}
          </SimpleGrid>
        )}
      </ListSection>
      <NewDialog
        which={dialog}
        projectId={projectId}
        releases={releases.data ?? []}
        onClose={() => setDialog(null)}
      />
    </Stack>
  );
}

function NewButtons({ onNew }: { onNew: (thing: NewThing) => void }) {
  return (
    <Group gap="xs">
      {NEW_BUTTONS.map(([thing, label]) => (
        <Button
          key={thing}
          variant="default"
          leftSection={<IconPlus size={16} aria-hidden />}
          onClick={() => onNew(thing)}
        >
          {label}
        </Button>
      ))}
    </Group>
  );
}

function ReleaseCards({
  projectId,
  releases,
  runs,
}: {
  projectId: string;
  releases: Release[];
  runs: ManualRunSummary[];
}) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
      {releases.map((release) => (
        <ReleaseCard
          key={release._id}
          projectId={projectId}
          release={release}
          runs={runs.filter((run) => run.release?._id === release._id)}
        />
      ))}
    </SimpleGrid>
  );
}

/** The open dialog of the three "New …" buttons, if any. */
function NewDialog({
  which,
  projectId,
  releases,
  onClose,
}: {
  which: NewThing | null;
  projectId: string;
  releases: Release[];
  onClose: () => void;
}) {
  if (which === 'run') return <NewRunDialog projectId={projectId} releases={releases} onClose={onClose} />;
  if (which === 'release') return <NewReleaseDialog projectId={projectId} onClose={onClose} />;
  if (which === 'session')
    return <NewSessionDialog projectId={projectId} releases={releases} onClose={onClose} />;
  return null;
}
