/**
 * One test in one run: its error (message, stack, snippet), the steps around the failure and the whole
 * step tree, its output, its attempts side by side, its artifacts (screenshots inline, videos playable,
 * traces in the self-hosted trace viewer, other files to download), the retry command and the debug
 * bundle as Markdown to copy, and its history across runs. A failure shows its verdict against the run's
 * base, a link to its error group and, when it is new on its branch, the suspect commits. The page of `links.uiUrl`.
 */
import { Alert, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { failureKey, runFailuresQuery } from '../../api/queries';
import { ErrorState, LoadingState } from '../../components/states';
import { testBundleQuery } from './api';
import { ArtifactsSection } from './ArtifactsSection';
import { AttemptsSection } from './AttemptsSection';
import { ErrorSection } from './ErrorSection';
import { FailureWindowSection } from './FailureWindowSection';
import { HistorySection } from './HistorySection';
import { OutputSection } from './OutputSection';
import { RetryCommand } from './RetryCommand';
import { StepsSection } from './StepsSection';
import { SuspectsSection } from './SuspectsSection';
import { TestActions } from './TestActions';
import { TestHeader } from './TestHeader';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId/tests/$caseId');

export function TestPage() {
  const { projectId, runId, caseId } = route.useParams();
  const search = route.useSearch();
  const bundle = useQuery(
    testBundleQuery({ projectId, runId, caseId, attempt: search.attempt, platform: search.project }),
  );

  const status = bundle.data?.meta.finishedAt ? 'finished' : 'running';
  const failures = useQuery({ ...runFailuresQuery(projectId, runId, status), enabled: bundle.isSuccess });

  if (bundle.isPending) return <LoadingState label="Loading the test…" rows={8} />;
  if (bundle.isError) return <ErrorState error={bundle.error} onRetry={() => void bundle.refetch()} />;
  const data = bundle.data;
  const { test, links } = data;
  const failure = failures.data?.items.find(
    (item) => failureKey(item.testCaseId, item.project) === failureKey(caseId, test.project),
  );

  return (
    <Stack gap="md">
      <TestHeader projectId={projectId} runId={runId} bundle={data} />
      <TestActions bundle={data} />
      <RetryCommand command={links.retryCommand} />
      {test.annotations.length > 0 ? (
        <Alert variant="light" color="gray" title="Annotations">
          {test.annotations.map((annotation, index) => (
            <Text key={index} size="sm">
              <b>{annotation.type}</b>
              {annotation.description ? `: ${annotation.description}` : ''}
            </Text>
          ))}
        </Alert>
      ) : null}

      <ErrorSection bundle={data} failure={failure} projectId={projectId} />
      {test.outcome === 'failed' ? (
        <SuspectsSection projectId={projectId} caseId={caseId} branch={data.environment.branch} />
      ) : null}
      <ArtifactsSection bundle={data} />
      <FailureWindowSection bundle={data} />
      <AttemptsSection bundle={data} />
      <StepsSection bundle={data} />
      <OutputSection bundle={data} />
      <HistorySection projectId={projectId} caseId={caseId} runId={runId} platform={test.project} />
    </Stack>
  );
}
