/** The case's history, revision by revision: who changed what, from what to what. */
import { Card, Stack, Text, Timeline, Title } from '@mantine/core';
import type { ManualCaseDetail } from '../../api/queries';
import { formatAgo, formatTime } from '../../components/format';
import { shortValue } from './historyText';

const HISTORY_KINDS: Record<ManualCaseDetail['history'][number]['kind'], string> = {
  created: 'created',
  updated: 'edited',
  commented: 'commented',
  'attachment-added': 'file attached',
  'attachment-removed': 'file removed',
};

export function CaseHistory({ testCase }: { testCase: ManualCaseDetail }) {
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={2} size="h4">
          History
        </Title>
        <Timeline bulletSize={12} lineWidth={2}>
          {testCase.history.map((entry, index) => (
            <Timeline.Item
              key={`${entry.revision}-${entry.kind}-${index}`}
              title={
                <Text size="sm" fw={600}>
                  Revision {entry.revision} · {HISTORY_KINDS[entry.kind]}
                </Text>
              }
            >
              <HistoryEntry entry={entry} />
            </Timeline.Item>
          ))}
        </Timeline>
        {testCase.historyTotal > testCase.history.length ? (
          <Text size="xs" c="dimmed">
            The {testCase.history.length} latest of {testCase.historyTotal} changes.
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}

/** One revision's details: who and when, each field from → to, comments, issues linked. */
function HistoryEntry({ entry }: { entry: ManualCaseDetail['history'][number] }) {
  return (
    <>
      <Text size="xs" c="dimmed">
        {entry.by ? `${entry.by.firstName} ${entry.by.lastName}` : 'Someone'} ·{' '}
        <span title={formatTime(entry.at)}>{formatAgo(entry.at)}</span>
      </Text>
      {Object.entries(entry.changes).map(([name, change]) =>
        name === 'attachments' ? (
          // An attachment entry's change is the file's name coming (added) or going (removed).
          <Text key={name} size="xs">
            {shortValue(change.to ?? change.from)}
          </Text>
        ) : (
          <Text key={name} size="xs">
            <b>{name}</b>: {shortValue(change.from)} → {shortValue(change.to)}
          </Text>
        ),
      )}
      {entry.comments.map((comment, i) => (
        <Text key={i} size="xs">
          Comment: {shortValue(comment)}
        </Text>
      ))}
      {entry.issuesLinked.length > 0 ? (
        <Text size="xs">Issues linked: {entry.issuesLinked.join(', ')}</Text>
      ) : null}
    </>
  );
}
