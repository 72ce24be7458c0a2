/**
 * The run's quality gate (issue 32): its status (passed, failed, pending while the run runs, or no rules
 * when the project had none as it finished) and each rule, what the run showed against its threshold,
 * with the failures that broke it linked to their test pages. Quarantined failures never count.
 */
import { Badge, Card, Group, List, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { failureKey, type FailureVerdict, type RunDetail, type RunFailures } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { formatTime } from '../../components/format';
import { GATE_RULE_LABELS, observedText, thresholdText } from '../../components/gateRules';
import { ErrorState, LoadingState } from '../../components/states';
import { badgeToneVars } from '../../components/Tone';
import { VerdictBadge, VERDICTS } from '../../components/VerdictBadge';
import { runGateQuery, type GateRuleResult, type RunGate } from './api';

const STATUS: Record<RunGate['status'], { label: string; tone: string; note: string }> = {
  passed: { label: 'passed', tone: 'teal', note: 'Every rule passed.' },
  failed: { label: 'failed', tone: 'red', note: 'At least one rule failed.' },
  pending: { label: 'pending', tone: 'blue', note: 'Judged once the run (its last shard) finishes.' },
  none: {
    label: 'no rules',
    tone: 'gray',
    note: 'The project had no gate rules when this run finished. Owners and admins set them in Settings.',
  },
};

export function GateBadge({ status }: { status: RunGate['status'] }) {
  const { label, tone } = STATUS[status];
  return (
    <Badge color={tone} variant="light" radius="sm" vars={badgeToneVars(tone)}>
      Gate {label}
    </Badge>
  );
}

const isVerdict = (verdict: string): verdict is FailureVerdict => Object.hasOwn(VERDICTS, verdict);

interface Place {
  projectId: string;
  runId: string;
  /** The run's failures, for the titles of the tests a rule names. */
  failures: RunFailures | null | undefined;
}

function RuleFailures({ rule, projectId, runId, failures }: Place & { rule: GateRuleResult }) {
  const titles = new Map(
    (failures?.items ?? []).map((item) => [failureKey(item.testCaseId, item.project), item.title]),
  );
  return (
    <List size="sm" spacing={2} mt={4} aria-label={`Failures against ${GATE_RULE_LABELS[rule.rule]}`}>
      {rule.failures.map((failure) => (
        <List.Item key={failureKey(failure.testCaseId, failure.project)}>
          <Group gap="xs" wrap="nowrap">
            <AnchorLink
              to="/projects/$projectId/runs/$runId/tests/$caseId"
              params={{ projectId, runId, caseId: failure.testCaseId }}
              search={failure.project ? { project: failure.project } : {}}
              size="sm"
              lineClamp={1}
            >
              {titles.get(failureKey(failure.testCaseId, failure.project)) ?? failure.testCaseId}
            </AnchorLink>
            {failure.project ? (
              <Text size="xs" c="dimmed">
                {failure.project}
              </Text>
            ) : null}
            {isVerdict(failure.verdict) ? <VerdictBadge verdict={failure.verdict} /> : null}
          </Group>
        </List.Item>
      ))}
    </List>
  );
}

function RulesTable({ gate, ...place }: Place & { gate: RunGate }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table aria-label="Gate rules">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Rule</Table.Th>
            <Table.Th>Threshold</Table.Th>
            <Table.Th>This run</Table.Th>
            <Table.Th>Result</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {gate.rules.map((rule) => (
            <Table.Tr key={rule.rule}>
              <Table.Td valign="top">
                <Text size="sm" fw={600}>
                  {GATE_RULE_LABELS[rule.rule]}
                </Text>
              </Table.Td>
              <Table.Td valign="top">{thresholdText(rule.rule, rule.threshold)}</Table.Td>
              <Table.Td valign="top">
                {observedText(rule.rule, rule.observed, rule.failures.length)}
                {rule.failures.length > 0 ? <RuleFailures rule={rule} {...place} /> : null}
              </Table.Td>
              <Table.Td valign="top">
                <Badge
                  color={rule.passed ? 'teal' : 'red'}
                  variant="light"
                  size="sm"
                  radius="sm"
                  vars={badgeToneVars(rule.passed ? 'teal' : 'red')}
                >
                  {rule.passed ? 'passed' : 'failed'}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function GatePanel({ run, ...place }: Place & { run: RunDetail }) {
  const gate = useQuery(runGateQuery(place.projectId, place.runId, run.status));
  return (
    <Card withBorder padding="md" component="section" aria-label="Quality gate">
      <Stack gap="xs">
        <Group gap="sm" justify="space-between">
          <Group gap="sm">
            <Title order={2} size="h4">
              Quality gate
            </Title>
            {gate.data ? <GateBadge status={gate.data.status} /> : null}
          </Group>
          {gate.data?.evaluatedAt ? (
            <Text size="xs" c="dimmed">
              Judged {formatTime(gate.data.evaluatedAt)}
            </Text>
          ) : null}
        </Group>
        {gate.isPending ? (
          <LoadingState label="Loading the gate…" rows={1} />
        ) : gate.isError ? (
          <ErrorState error={gate.error} onRetry={() => void gate.refetch()} />
        ) : (
          <>
            {gate.data.rules.length === 0 ? (
              <Text size="sm" c="dimmed">
                {STATUS[gate.data.status].note}
              </Text>
            ) : (
              <RulesTable gate={gate.data} {...place} />
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}
