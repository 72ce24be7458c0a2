/**
 * The current case of the run, mounted per case: its head and verdict, its evidence, its steps with their
 * results and its verdict history. Memoised: a verdict's later renders of the page leave the next case alone.
 */
import { Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { memo } from 'react';
import { manualCaseQuery } from '../../api/manual';
import type { ManualRunCase } from '../../api/queries';
import { stepsOf } from './caseDetails';
import { CaseSummary } from './CaseSummary';
import { RunEvidence } from './RunEvidence';
import { StepResultsCard } from './StepResultsCard';
import { useCaseDetails } from './useCaseDetails';
import type { Verdict } from './verdicts';
import { VerdictHistory } from './VerdictHistory';

export const CurrentCase = memo(function CurrentCase({
  projectId,
  runId,
  runCase,
  canWrite,
  onVerdict,
  pending,
}: {
  projectId: string;
  runId: string;
  runCase: ManualRunCase;
  canWrite: boolean;
  onVerdict: (result: Verdict) => void;
  pending: boolean;
}) {
  const testCase = useQuery(manualCaseQuery(projectId, runCase.caseRef._id));
  const details = useCaseDetails(projectId, runId, runCase);
  return (
    <Stack>
      <CaseSummary
        projectId={projectId}
        runCase={runCase}
        canWrite={canWrite}
        onVerdict={onVerdict}
        pending={pending}
        update={details.update}
        preconditions={testCase.data?.preconditions}
      />
      <RunEvidence projectId={projectId} runId={runId} runCase={runCase} canWrite={canWrite} />
      <StepResultsCard
        testCase={testCase}
        steps={stepsOf(testCase.data)}
        details={details}
        linkedIssues={runCase.linkedIssues}
        canWrite={canWrite}
      />
      <VerdictHistory history={runCase.history} />
    </Stack>
  );
});
