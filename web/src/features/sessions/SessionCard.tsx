import { Box, Card, Group, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import type { ExploratorySession } from '../../api/queries';
import { AssigneeSelect } from '../../components/AssigneeSelect';
import { StatusBadge } from '../../components/badges';
import { useUpdateSession } from './api';
import { SessionControls } from './SessionControls';
import { minutesSpent, timeBoxOf } from './sessionTime';

/** An exploratory session: its charter, time, assignee, notes and findings; a writer moves it along. */
export function SessionCard({
  projectId,
  session,
  canWrite,
}: {
  projectId: string;
  session: ExploratorySession;
  canWrite: boolean;
}) {
  const [notes, setNotes] = useState(session.notes);
  const [finding, setFinding] = useState('');
  const update = useUpdateSession(projectId, session._id, () => setFinding(''));
  return (
    <Card withBorder component="article" aria-label={`Session: ${session.charter}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Text fw={600}>{session.charter}</Text>
          <Box style={{ flexShrink: 0 }}>
            <StatusBadge status={session.status.replace('_', ' ')} size="xs" />
          </Box>
        </Group>
        <SessionSummary session={session} canWrite={canWrite} />
        {canWrite ? <SessionAssignee projectId={projectId} session={session} update={update} /> : null}
        <Textarea
          label="Notes"
          autosize
          minRows={2}
          value={notes}
          readOnly={!canWrite}
          onChange={(e) => setNotes(e.currentTarget.value)}
        />
        <SessionFindings findings={session.findings} />
        {canWrite ? (
          <SessionControls
            session={session}
            notes={notes}
            finding={finding}
            onFinding={setFinding}
            update={update}
          />
        ) : null}
      </Stack>
    </Card>
  );
}

/** A writer's assignee select: changing it updates the session at once. */
function SessionAssignee({
  projectId,
  session,
  update,
}: {
  projectId: string;
  session: ExploratorySession;
  update: ReturnType<typeof useUpdateSession>;
}) {
  return (
    <AssigneeSelect
      projectId={projectId}
      value={session.assignee?._id ?? null}
      current={session.assignee}
      onChange={(userId) => update.mutate({ assigneeUserId: userId })}
      disabled={update.isPending}
      size="xs"
    />
  );
}

/** Its release, time spent and time box; the assignee for a reader (a writer sees the select). */
function SessionSummary({ session, canWrite }: { session: ExploratorySession; canWrite: boolean }) {
  const minutes = minutesSpent(session);
  const assignee = session.assignee;
  return (
    <Text size="xs" c="dimmed">
      {session.release ? `${session.release.name} · ` : ''}
      {minutes === null ? 'not started' : `${minutes} min ${session.completedAt ? 'spent' : 'so far'}`}
      {timeBoxOf(minutes, session.timeBoxMinutes)}
      {canWrite ? '' : ` · ${assignee ? `${assignee.firstName} ${assignee.lastName}` : 'nobody assigned'}`}
    </Text>
  );
}

function SessionFindings({ findings }: { findings: ExploratorySession['findings'] }) {
  return (
    <Stack gap={2}>
      <Text size="sm" fw={600}>
        Findings
      </Text>
      {findings.length === 0 ? (
        <Text size="sm" c="dimmed">
          None yet.
        </Text>
      ) : (
        findings.map((f, i) => (
          <Text key={i} size="sm">
            • {f.title}
            {f.issueKey ? ` (${f.issueKey})` : ''}
          </Text>
        ))
      )}
    </Stack>
  );
}
