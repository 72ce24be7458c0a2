/** The run case's details a tester edits before saving them: step results, a comment, an issue to link. */
import { useState } from 'react';
import type { ManualRunCase } from '../../api/queries';
import { useUpdateRunCase } from './api';
import {
  detailsPatch,
  savedStepResults,
  withStepResult,
  type StepResult,
  type StepResults,
} from './caseDetails';

export function useCaseDetails(projectId: string, runId: string, runCase: ManualRunCase) {
  const [stepResults, setStepResults] = useState<StepResults>(() => savedStepResults(runCase));
  const [comment, setComment] = useState(runCase.comment ?? '');
  const [issue, setIssue] = useState('');
  const update = useUpdateRunCase(projectId, runId, runCase._id);
  const setStep = (order: number, change: Partial<StepResult>) =>
    setStepResults((previous) => withStepResult(previous, order, change));
  const saveDetails = () => {
    update.mutate(detailsPatch(comment, stepResults, runCase.linkedIssues, issue));
    setIssue('');
  };
  return { stepResults, setStep, comment, setComment, issue, setIssue, saveDetails, update };
}

export type CaseDetails = ReturnType<typeof useCaseDetails>;
