/** Extend a quarantine (a later day, at most 90 days from today) or lift it (with an optional reason). */
import { Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import {
  MAX_QUARANTINE_DAYS,
  useExtendQuarantine,
  useLiftQuarantine,
  type Quarantine,
} from '../../api/quarantines';
import { DialogForm } from '../../components/DialogForm';
import { dayAfter, daysAhead, dayValue, expiryOf, expiryProblem } from '../../components/expiry';
import { formatDate } from '../../components/format';

interface Props {
  projectId: string;
  quarantine: Quarantine;
  onClose: () => void;
}

const titleOf = (quarantine: Quarantine) => quarantine.titlePath.join(' › ');

/** 14 days after the current expiry, or the furthest day allowed. */
function proposedDay(quarantine: Quarantine, now: Date): string {
  const later = dayValue(new Date(Date.parse(quarantine.expiresAt) + 14 * 86_400_000));
  const ahead = daysAhead(later, now) ?? 0;
  return ahead > MAX_QUARANTINE_DAYS ? dayAfter(now, MAX_QUARANTINE_DAYS) : later;
}

export function ExtendDialog({ projectId, quarantine, onClose }: Props) {
  const [day, setDay] = useState(() => proposedDay(quarantine, new Date()));
  const [tried, setTried] = useState(false);
  const extend = useExtendQuarantine(projectId, quarantine.id, onClose);
  const problem = expiryProblem(day, new Date(), MAX_QUARANTINE_DAYS, quarantine.expiresAt);
  return (
    <DialogForm
      title={`Extend the quarantine of ${titleOf(quarantine)}`}
      onClose={onClose}
      onSubmit={() => {
        setTried(true);
        if (problem === null) extend.mutate(expiryOf(day, new Date()));
      }}
      pending={extend.isPending}
      error={extend.error}
      submit="Extend"
      disabled={false}
    >
      <Text size="sm">It expires {formatDate(quarantine.expiresAt)}.</Text>
      <TextInput
        type="date"
        label="New expiry"
        description={`At most ${MAX_QUARANTINE_DAYS} days from today`}
        withAsterisk
        data-autofocus
        value={day}
        onChange={(event) => setDay(event.currentTarget.value)}
        error={tried ? problem : null}
      />
    </DialogForm>
  );
}

export function LiftDialog({ projectId, quarantine, onClose }: Props) {
  const [reason, setReason] = useState('');
  const lift = useLiftQuarantine(projectId, quarantine.id, onClose);
  return (
    <DialogForm
      title={`Lift the quarantine of ${titleOf(quarantine)}`}
      onClose={onClose}
      onSubmit={() => lift.mutate(reason)}
      pending={lift.isPending}
      error={lift.error}
      submit="Lift quarantine"
      disabled={false}
      danger
    >
      <Text size="sm">Its failures count again from the next run.</Text>
      <TextInput
        label="Why (optional)"
        placeholder="Fixed in #123"
        data-autofocus
        maxLength={1000}
        value={reason}
        onChange={(event) => setReason(event.currentTarget.value)}
      />
    </DialogForm>
  );
}
