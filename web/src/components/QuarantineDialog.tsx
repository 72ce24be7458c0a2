/**
 * Quarantines a test (issue 32): why, who owns it (a member), until when (14 days by default, at most 90),
 * on its platform or all, and which of its recent errors it forgives (all of them at first, with how often
 * each occurred in the last 30 days). A failure with another error still counts.
 */
import { Checkbox, Group, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import {
  MAX_QUARANTINE_DAYS,
  recentSignatures,
  testExecutionsQuery,
  useQuarantineTest,
  type Quarantine,
} from '../api/quarantines';
import { sessionQuery } from '../api/queries';
import { AssigneeSelect } from './AssigneeSelect';
import { DialogForm } from './DialogForm';
import { dayAfter, expiryOf, expiryProblem } from './expiry';

export interface QuarantineTarget {
  testCaseId: string;
  title: string;
  /** The platform it failed on; null: the test as a whole. */
  project: string | null;
}

const DEFAULT_DAYS = 14;

/** An error it may forgive, and how often the test failed with it. */
function SignatureLabel({ text, occurrences }: { text: string; occurrences: number }) {
  return (
    <Group gap={6} wrap="nowrap" component="span">
      <Text span size="sm" className="mono" lineClamp={2}>
        {text}
      </Text>
      <Text span size="xs" c="dimmed" style={{ flex: 'none' }}>
        {occurrences}×
      </Text>
    </Group>
  );
}

function SignaturesField({
  projectId,
  target,
  platform,
  value,
  onChange,
  error,
}: {
  projectId: string;
  target: QuarantineTarget;
  platform: string | null;
  /** The ids picked; null: all of them (nothing unticked yet). */
  value: string[] | null;
  onChange: (ids: string[]) => void;
  error: string | null;
}) {
  const executions = useQuery(testExecutionsQuery(projectId, target.testCaseId));
  const signatures = useMemo(
    () => recentSignatures(executions.data ?? [], platform, new Date()),
    [executions.data, platform],
  );
  if (executions.isPending) return <Text size="sm">Loading its recent errors…</Text>;
  if (signatures.length === 0)
    return (
      <Text size="sm" c="dimmed">
        It forgives the errors of the test’s failures in the last 30 days.
      </Text>
    );
  return (
    <Checkbox.Group
      label="Errors it forgives"
      description="Its failures with another error still count."
      value={value ?? signatures.map((signature) => signature.id)}
      onChange={onChange}
      error={error}
    >
      <Stack gap={6} mt={6}>
        {signatures.map((signature) => (
          <Checkbox key={signature.id} value={signature.id} label={<SignatureLabel {...signature} />} />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}

/** What keeps the form from being sent, by field; null where nothing does. */
function problemsOf(
  form: { reason: string; ownerId: string | null; day: string; signatures: string[] | null },
  now: Date,
) {
  return {
    reason: form.reason.trim() === '' ? 'Say why the test is quarantined' : null,
    owner: form.ownerId ? null : 'Pick the member who owns it',
    expiry: expiryProblem(form.day, now, MAX_QUARANTINE_DAYS),
    signatures: form.signatures !== null && form.signatures.length === 0 ? 'Pick at least one error' : null,
  };
}

export function QuarantineDialog({
  projectId,
  target,
  onClose,
  onDone,
}: {
  projectId: string;
  target: QuarantineTarget;
  onClose: () => void;
  onDone?: (quarantine: Quarantine) => void;
}) {
  const me = useQuery(sessionQuery()).data?.user?.id ?? null;
  const [reason, setReason] = useState('');
  const [ownerId, setOwnerId] = useState<string | null>(me);
  const [day, setDay] = useState(() => dayAfter(new Date(), DEFAULT_DAYS));
  const [onePlatform, setOnePlatform] = useState(target.project !== null);
  const [signatures, setSignatures] = useState<string[] | null>(null);
  const [tried, setTried] = useState(false);
  const save = useQuarantineTest(projectId, (quarantine) => {
    onDone?.(quarantine);
    onClose();
  });
  const platform = onePlatform ? target.project : null;
  const problems = problemsOf({ reason, ownerId, day, signatures }, new Date());
  const valid = Object.values(problems).every((problem) => problem === null);
  const shown = (problem: string | null) => (tried ? problem : null);
  return (
    <DialogForm
      title={`Quarantine ${target.title}`}
      onClose={onClose}
      onSubmit={() => {
        setTried(true);
        if (!valid || !ownerId) return;
        save.mutate({
          testCaseId: target.testCaseId,
          project: platform,
          reason: reason.trim(),
          ownerId,
          expiresAt: expiryOf(day, new Date()),
          ...(signatures ? { signatures } : {}),
        });
      }}
      pending={save.isPending}
      error={save.error}
      submit="Quarantine"
      disabled={false}
    >
      <Textarea
        label="Reason"
        withAsterisk
        data-autofocus
        autosize
        minRows={2}
        maxLength={1000}
        placeholder="Why its failures may wait, and where the fix is tracked"
        value={reason}
        onChange={(event) => setReason(event.currentTarget.value)}
        error={shown(problems.reason)}
      />
      <AssigneeSelect
        projectId={projectId}
        label="Owner"
        description="Who fixes the test, or lifts the quarantine"
        placeholder="Pick a member"
        withAsterisk
        clearable={false}
        value={ownerId}
        onChange={setOwnerId}
        error={shown(problems.owner)}
      />
      <TextInput
        type="date"
        label="Expires"
        description={`At most ${MAX_QUARANTINE_DAYS} days from today`}
        withAsterisk
        value={day}
        onChange={(event) => setDay(event.currentTarget.value)}
        error={shown(problems.expiry)}
      />
      {target.project ? (
        <Checkbox
          label={`Only on ${target.project}`}
          checked={onePlatform}
          onChange={(event) => {
            setOnePlatform(event.currentTarget.checked);
            setSignatures(null);
          }}
        />
      ) : null}
      <SignaturesField
        projectId={projectId}
        target={target}
        platform={platform}
        value={signatures}
        onChange={setSignatures}
        error={shown(problems.signatures)}
      />
    </DialogForm>
  );
}
