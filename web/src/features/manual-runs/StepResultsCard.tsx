/**
 * The current case's steps with a result and a comment each, a comment on the whole result and the linked
 * issues; saved together as the detailed result.
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { describeError } from '../../api/client';
import type { ManualCaseDetail, ManualRunCase } from '../../api/queries';
import { ErrorState, LoadingState } from '../../components/states';
import type { RunStep, StepResult, StepResults } from './caseDetails';
import type { CaseDetails } from './useCaseDetails';
import { VERDICTS, type RunCaseResult } from './verdicts';

export function StepResultsCard({
  testCase,
  steps,
  details,
  linkedIssues,
  canWrite,
}: {
  testCase: UseQueryResult<ManualCaseDetail>;
  steps: RunStep[];
  details: CaseDetails;
  linkedIssues: ManualRunCase['linkedIssues'];
  canWrite: boolean;
}) {
  const { update } = details;
  const error = update.isError ? describeError(update.error) : null;
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={3} size="h4">
          Steps
        </Title>
        <StepsOfCase testCase={testCase} steps={steps} details={details} canWrite={canWrite} />
        <Textarea
          label="Comment on the result"
          autosize
          minRows={2}
          value={details.comment}
          readOnly={!canWrite}
          onChange={(event) => details.setComment(event.currentTarget.value)}
        />
        <LinkedIssues linkedIssues={linkedIssues} />
        {canWrite ? <LinkIssue details={details} /> : null}
        {error ? (
          <Alert color="red" variant="light" title={error.title} role="alert">
            {error.message}
          </Alert>
        ) : null}
      </Stack>
    </Card>
  );
}

function StepsOfCase({
  testCase,
  steps,
  details,
  canWrite,
}: {
  testCase: UseQueryResult<ManualCaseDetail>;
  steps: RunStep[];
  details: CaseDetails;
  canWrite: boolean;
}) {
  return testCase.isPending ? (
    <LoadingState label="Loading the steps…" rows={2} />
  ) : testCase.isError ? (
    <ErrorState error={testCase.error} />
  ) : steps.length === 0 ? (
    <Text size="sm" c="dimmed">
      This case has no step.
    </Text>
  ) : (
    <StepsTable
      steps={steps}
      stepResults={details.stepResults}
      setStep={details.setStep}
      canWrite={canWrite}
    />
  );
}

function LinkIssue({ details }: { details: CaseDetails }) {
  return (
    <Group align="flex-end" gap="xs">
      <TextInput
        label="Link an issue"
        placeholder="PAY-123"
        size="xs"
        value={details.issue}
        maxLength={200}
        onChange={(event) => details.setIssue(event.currentTarget.value)}
      />
      <Button size="xs" variant="default" onClick={details.saveDetails} loading={details.update.isPending}>
        Save step results, comment and issue
      </Button>
    </Group>
  );
}

function LinkedIssues({ linkedIssues }: { linkedIssues: ManualRunCase['linkedIssues'] }) {
  return (
    <Group gap={4}>
      <Text size="sm">Linked issues:</Text>
      {linkedIssues.length === 0 ? (
        <Text size="sm" c="dimmed">
          none
        </Text>
      ) : (
        linkedIssues.map((i, n) => (
          <Badge key={n} variant="outline" color="gray">
            {String(i.key)}
          </Badge>
        ))
      )}
    </Group>
  );
}

function StepsTable({
  steps,
  stepResults,
  setStep,
  canWrite,
}: {
  steps: RunStep[];
  stepResults: StepResults;
  setStep: (order: number, change: Partial<StepResult>) => void;
  canWrite: boolean;
}) {
  return (
    <Table aria-label="Steps and their results" verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={28}>#</Table.Th>
          <Table.Th>Step</Table.Th>
          <Table.Th w={130}>Result</Table.Th>
          <Table.Th>Comment</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {steps.map((s, i) => (
          <StepRow
            key={i + 1}
            order={i + 1}
            step={s}
            result={stepResults[i + 1]}
            setStep={setStep}
            canWrite={canWrite}
          />
        ))}
      </Table.Tbody>
    </Table>
  );
}

function StepRow({
  order,
  step: s,
  result,
  setStep,
  canWrite,
}: {
  order: number;
  step: RunStep;
  result: StepResult | undefined;
  setStep: (order: number, change: Partial<StepResult>) => void;
  canWrite: boolean;
}) {
  return (
    <Table.Tr>
      <Table.Td>{order}</Table.Td>
      <Table.Td>
        <StepText step={s} />
      </Table.Td>
      <Table.Td>
        <Select
          aria-label={`Step ${order} result`}
          size="xs"
          data={['untested', ...VERDICTS.map((v) => v.result)]}
          value={result?.status ?? 'untested'}
          onChange={(value) => value && setStep(order, { status: value as RunCaseResult })}
          allowDeselect={false}
          readOnly={!canWrite}
        />
      </Table.Td>
      <Table.Td>
        <TextInput
          aria-label={`Step ${order} comment`}
          size="xs"
          value={result?.comment ?? ''}
          readOnly={!canWrite}
          onChange={(event) => setStep(order, { comment: event.currentTarget.value })}
        />
      </Table.Td>
    </Table.Tr>
  );
}

/** A step's action (or Gherkin line), its data and its expected result. */
function StepText({ step: s }: { step: RunStep }) {
  return (
    <>
      <Text size="sm">{s.text}</Text>
      {s.data ? (
        <Text size="xs" className="mono">
          {s.data}
        </Text>
      ) : null}
      {s.expected ? (
        <Text size="xs" c="dimmed">
          Expected: {s.expected}
        </Text>
      ) : null}
    </>
  );
}
