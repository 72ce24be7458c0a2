/**
 * The quality gate's rules (issue 32): what a run must meet when it finishes. Owners and admins turn each
 * rule on with its threshold, save, or remove the gate; other roles read the rules set.
 */
import {
  Alert,
  Button,
  Checkbox,
  Group,
  NumberInput,
  Stack,
  Table,
  TagsInput,
  Text,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { describeError } from '../../api/client';
import { filtersQuery, membersQuery } from '../../api/queries';
import { formatTime } from '../../components/format';
import {
  GATE_RULE_LABELS,
  GATE_RULE_NAMES,
  thresholdText,
  type GateRuleName,
} from '../../components/gateRules';
import { ErrorState, LoadingState } from '../../components/states';
import { gateRulesQuery, useSaveGateRules, type GateRulesDocument } from './api';
import { fromDraft, NUMBER_RULES, toDraft, type GateDraft } from './gateDraft';

const MEANINGS: Record<GateRuleName, string> = {
  maxFailedTests: 'At most this many failed tests (quarantined failures do not count)',
  minPassRate: 'At least this share of the tests that ran passed (flaky and quarantined count as passed)',
  noNewFailures: 'No failure new against the base branch',
  maxFlakyRate: 'At most this share of the tests that ran was flaky',
  minTestCount: 'At least this many tests ran (skipped ones do not count)',
  requiredProjects: 'Each of these platforms ran at least one test',
  maxDurationMs: 'The run took at most this long',
};

function Changed({ projectId, document }: { projectId: string; document: GateRulesDocument }) {
  const members = useQuery(membersQuery(projectId));
  if (!document.updatedAt) return null;
  const by = members.data?.find((member) => member.userId === document.updatedBy);
  return (
    <Text size="xs" c="dimmed">
      Last changed {formatTime(document.updatedAt)}
      {by ? ` by ${by.firstName} ${by.lastName}` : ''}. A run is judged once, when it finishes.
    </Text>
  );
}

function ReadOnlyRules({ document }: { document: GateRulesDocument }) {
  const set = GATE_RULE_NAMES.filter((rule) => document.rules[rule] !== undefined);
  if (set.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No rules: runs finish without a gate. An owner or an admin can set them.
      </Text>
    );
  return (
    <Table aria-label="Gate rules" maw={720}>
      <Table.Tbody>
        {set.map((rule) => (
          <Table.Tr key={rule}>
            <Table.Th w={160}>{GATE_RULE_LABELS[rule]}</Table.Th>
            <Table.Td>{thresholdText(rule, document.rules[rule] as number | boolean | string[])}</Table.Td>
            <Table.Td>
              <Text size="xs" c="dimmed">
                {MEANINGS[rule]}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function UnitText({ unit }: { unit: string }) {
  return (
    <Text size="xs" c="dimmed" pr={6}>
      {unit}
    </Text>
  );
}

function RuleInput({
  rule,
  draft,
  onChange,
  platforms,
  error,
}: {
  rule: GateRuleName;
  draft: GateDraft;
  onChange: (draft: GateDraft) => void;
  platforms: string[];
  error: string | undefined;
}) {
  const label = `${GATE_RULE_LABELS[rule]} threshold`;
  if (rule === 'noNewFailures') return null;
  if (rule === 'requiredProjects')
    return (
      <TagsInput
        aria-label={label}
        size="xs"
        data={platforms}
        placeholder="chromium, firefox…"
        disabled={!draft.on.requiredProjects}
        value={draft.projects}
        onChange={(projects) => onChange({ ...draft, projects })}
        error={error}
      />
    );
  const spec = NUMBER_RULES[rule];
  return (
    <NumberInput
      aria-label={label}
      size="xs"
      w={160}
      min={0}
      {...(spec.max !== undefined ? { max: spec.max } : {})}
      decimalScale={spec.integer ? 0 : 1}
      rightSection={<UnitText unit={spec.unit} />}
      rightSectionWidth={48}
      disabled={!draft.on[rule]}
      value={draft.numbers[rule]}
      onChange={(value) =>
        onChange({ ...draft, numbers: { ...draft.numbers, [rule]: typeof value === 'number' ? value : '' } })
      }
      error={error}
    />
  );
}

function RulesForm({ projectId, document }: { projectId: string; document: GateRulesDocument }) {
  const [draft, setDraft] = useState(() => toDraft(document.rules));
  const [tried, setTried] = useState(false);
  const platforms = useQuery(filtersQuery(projectId)).data?.platforms ?? [];
  const save = useSaveGateRules(projectId);
  const result = fromDraft(draft);
  const problems = tried ? (result.problems ?? {}) : {};
  const failure = save.error ? describeError(save.error) : null;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if (result.rules) save.mutate(result.rules);
      }}
    >
      <Stack gap="sm">
        <Table.ScrollContainer minWidth={720} maw={960}>
          <Table aria-label="Gate rules">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Rule</Table.Th>
                <Table.Th>Threshold</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {GATE_RULE_NAMES.map((rule) => (
                <Table.Tr key={rule}>
                  <Table.Td>
                    <Checkbox
                      label={GATE_RULE_LABELS[rule]}
                      description={MEANINGS[rule]}
                      checked={draft.on[rule]}
                      onChange={(event) => {
                        const on = event.currentTarget.checked;
                        setDraft((previous) => ({ ...previous, on: { ...previous.on, [rule]: on } }));
                      }}
                    />
                  </Table.Td>
                  <Table.Td w={300}>
                    <RuleInput
                      rule={rule}
                      draft={draft}
                      onChange={setDraft}
                      platforms={platforms}
                      error={problems[rule]}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {failure ? (
          <Alert color="red" variant="light" title={failure.title} role="alert">
            {failure.message}
          </Alert>
        ) : null}
        {save.isSuccess && !save.isPending ? (
          <Text size="sm" role="status">
            Saved: runs that finish from now on are judged by these rules.
          </Text>
        ) : null}
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save gate rules
          </Button>
          <Button
            variant="default"
            disabled={save.isPending || Object.keys(document.rules).length === 0}
            onClick={() => {
              setDraft(toDraft({}));
              save.mutate({});
            }}
          >
            Remove the gate
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function GateRulesSection({ projectId, canManage }: { projectId: string; canManage: boolean }) {
  const rules = useQuery(gateRulesQuery(projectId));
  return (
    <Stack gap="sm" component="section" aria-label="Quality gate">
      <Title order={2} size="h3">
        Quality gate
      </Title>
      <Text size="sm" c="dimmed">
        When a run finishes, Verdict judges it by these rules: the run page, the webhook’s run.finished and
        the CLI show whether it passed. Quarantined failures never count.
      </Text>
      {rules.isPending ? (
        <LoadingState rows={3} />
      ) : rules.isError ? (
        <ErrorState error={rules.error} onRetry={() => void rules.refetch()} />
      ) : (
        <>
          {canManage ? (
            <RulesForm projectId={projectId} document={rules.data} />
          ) : (
            <ReadOnlyRules document={rules.data} />
          )}
          <Changed projectId={projectId} document={rules.data} />
        </>
      )}
    </Stack>
  );
}
