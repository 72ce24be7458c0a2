/**
 * Manual run execution (spec §4.4), the page a tester lives in. The run's cases in order on the left, the
 * current case's steps beside its verdict on the right. Keyboard first: J or ↓ next case, K or ↑ previous,
 * P F B S R record passed, failed, blocked, skipped, retest (with the time the case was open) and move on to
 * the next case still to test. Per-step results, a comment and linked issues are saved as the detailed
 * result; screenshots and logs are attached as evidence beside the verdict. The run is asked again every
 * 5 s, so two testers see each other's verdicts and evidence; every verdict stays in the case's history.
 */
import { Alert, Grid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { describeError } from '../../api/client';
import type { ManualRunDetail } from '../../api/queries';
import { ErrorState, LoadingState } from '../../components/states';
import { manualRunQuery } from './api';
import { CaseList } from './CaseList';
import { CurrentCase } from './CurrentCase';
import { RunHeader } from './RunHeader';
import { useRunExecution } from './useRunExecution';

const route = getRouteApi('/signed-in/projects/$projectId/manual-runs/$runId');

export function ManualRunPage() {
  const { projectId, runId } = route.useParams();
  const run = useQuery(manualRunQuery(projectId, runId));
  if (run.isPending) return <LoadingState label="Loading the run…" />;
  if (run.isError) return <ErrorState error={run.error} onRetry={() => void run.refetch()} />;
  return <Execution projectId={projectId} run={run.data} />;
}

function Execution({ projectId, run }: { projectId: string; run: ManualRunDetail }) {
  const { canWrite, index, current, go, onVerdict, record } = useRunExecution(projectId, run);
  const cases = run.testCases;
  const error = record.isError ? describeError(record.error) : null;
  return (
    <Stack>
      <RunHeader run={run} canWrite={canWrite} />
      {error ? (
        <Alert color="red" variant="light" title={error.title} role="alert">
          {error.message}
        </Alert>
      ) : null}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 5 }}>
          <CaseList cases={cases} index={index} onPick={go} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          {current ? (
            <CurrentCase
              key={current._id}
              projectId={projectId}
              runId={run._id}
              runCase={current}
              canWrite={canWrite}
              onVerdict={onVerdict}
              pending={record.isPending}
            />
          ) : (
            <Text c="dimmed">This run has no case.</Text>
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
