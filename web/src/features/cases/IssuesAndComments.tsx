/**
 * What a reader appends to a case without editing it (spec §4.3): linked issues and comments. Each is a card
 * of its list and, for a writer, the form that appends one.
 */
import { Badge, Button, Card, Group, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useEffect, useState, type ChangeEvent, type ReactNode } from 'react';
import type { ManualCaseDetail } from '../../api/queries';
import { formatAgo, formatTime } from '../../components/format';
import { useAppendToCase } from './api';

type AppendFormProps = {
  projectId: string;
  testCase: ManualCaseDetail;
  /** The PATCH field that appends one. */
  appends: 'issues' | 'comments';
  input: { label: string; placeholder?: string; maxLength: number; multiline: boolean };
  submit: string;
};

/** A card of what is appended to the case: its list (or `none`), and for a writer the form that adds one. */
function AppendCard({
  projectId,
  testCase,
  canWrite,
  title,
  none,
  list,
  appends,
  input,
  submit,
}: AppendFormProps & {
  canWrite: boolean;
  title: string;
  none: string;
  /** The list, or null when there is none yet. */
  list: ReactNode;
}) {
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {list ?? (
          <Text size="sm" c="dimmed">
            {none}
          </Text>
        )}
        {canWrite ? (
          <AppendForm
            projectId={projectId}
            testCase={testCase}
            appends={appends}
            input={input}
            submit={submit}
          />
        ) : null}
      </Stack>
    </Card>
  );
}

export function Issues(props: { projectId: string; testCase: ManualCaseDetail; canWrite: boolean }) {
  const { issues } = props.testCase;
  return (
    <AppendCard
      {...props}
      title="Linked issues"
      none="No linked issue."
      list={
        issues.length === 0 ? null : (
          <Group gap={4}>
            {issues.map((issue) => (
              <Badge key={issue.key} variant="outline" color="gray" title={formatTime(issue.linkedAt)}>
                {issue.key}
              </Badge>
            ))}
          </Group>
        )
      }
      appends="issues"
      input={{ label: 'Issue key', placeholder: 'PAY-123', maxLength: 200, multiline: false }}
      submit="Link issue"
    />
  );
}

export function Comments(props: { projectId: string; testCase: ManualCaseDetail; canWrite: boolean }) {
  const { comments } = props.testCase;
  return (
    <AppendCard
      {...props}
      title="Comments"
      none="No comment."
      list={
        comments.length === 0
          ? null
          : comments.map((entry) => (
              <Stack key={entry._id} gap={0}>
                <Text size="xs" c="dimmed">
                  {entry.author ? `${entry.author.firstName} ${entry.author.lastName}` : 'Someone'} ·{' '}
                  <span title={formatTime(entry.createdAt)}>{formatAgo(entry.createdAt)}</span>
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {entry.text}
                </Text>
              </Stack>
            ))
      }
      appends="comments"
      input={{ label: 'New comment', maxLength: 10_000, multiline: true }}
      submit="Comment"
    />
  );
}

function AppendForm({ projectId, testCase, appends, input, submit }: AppendFormProps) {
  const [value, setValue] = useState('');
  const append = useAppendToCase(projectId, testCase._id);
  useEffect(() => {
    if (append.isSuccess) setValue('');
  }, [append.isSuccess]);
  const button = (
    <Button type="submit" size="xs" variant="default" loading={append.isPending} disabled={!value.trim()}>
      {submit}
    </Button>
  );
  const field = {
    label: input.label,
    placeholder: input.placeholder,
    value,
    maxLength: input.maxLength,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      setValue(event.currentTarget.value),
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) append.mutate({ [appends]: [value.trim()] });
      }}
    >
      {input.multiline ? (
        <Stack gap="xs">
          <Textarea autosize minRows={2} {...field} />
          <Group justify="flex-end">{button}</Group>
        </Stack>
      ) : (
        <Group gap="xs" align="flex-end">
          <TextInput size="xs" style={{ flex: 1 }} {...field} />
          {button}
        </Group>
      )}
    </form>
  );
}
