/**
 * The case editor (spec §2, §4.3): every field of a manual case, its steps (Classic or Gherkin, reordered by
 * drag or keyboard), attachments, comments, linked issues, the automated tests that name it with their
 * latest outcome, and its history revision by revision. Edits stay in a draft until "Save" (one PATCH of
 * what changed); leaving with unsaved changes asks first, in the app and when the tab closes.
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Grid,
  Group,
  JsonInput,
  Modal,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  TextInput,
  Textarea,
  Timeline,
  Title,
} from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, useBlocker } from '@tanstack/react-router';
import { useEffect, useState, type ChangeEvent, type FormEvent, type ReactNode } from 'react';
import { describeError } from '../../api/client';
import { type ManualCaseDetail } from '../../api/queries';
import { manualCaseQuery } from '../../api/manual';
import { useCanWrite } from '../../api/role';
import { AnchorLink } from '../../components/AnchorLink';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatTime } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';
import { changesOf, draftOf, FLAGS, parseCustomFields, type CaseDraft, type StepFormat } from './caseDraft';
import { AttachmentGallery, type GalleryWords } from '../../components/AttachmentGallery';
import { useAppendToCase, useCaseAttachments, useSaveCase } from './api';
import { StepsEditor } from './StepsEditor';
import { CASE_FIELDS, FIELD_LABELS, optionsOf, type CaseField } from '../../components/manualValues';

const route = getRouteApi('/signed-in/projects/$projectId/cases/$caseId');

export function CaseEditorPage() {
  const { projectId, caseId } = route.useParams();
  const testCase = useQuery(manualCaseQuery(projectId, caseId));
  if (testCase.isPending) return <LoadingState label="Loading the test case…" />;
  if (testCase.isError) return <ErrorState error={testCase.error} onRetry={() => void testCase.refetch()} />;
  return <CaseEditor projectId={projectId} testCase={testCase.data} />;
}

function CaseEditor({ projectId, testCase }: { projectId: string; testCase: ManualCaseDetail }) {
  const canWrite = useCanWrite(projectId);
  // The draft starts from the case and is reset only by a save: a comment or an attachment added meanwhile
  // (which refreshes the case) keeps what is being typed.
  const [saved, setSaved] = useState<CaseDraft>(() => draftOf(testCase));
  const [draft, setDraft] = useState<CaseDraft>(saved);
  const changes = changesOf(saved, draft);
  const dirty = Object.keys(changes).length > 0;
  const customFields = parseCustomFields(draft.customFields);
  const set = <K extends keyof CaseDraft>(key: K, value: CaseDraft[K]) =>
    setDraft((previous) => ({ ...previous, [key]: value }));

  const save = useSaveCase(projectId, testCase._id);
  const saveChanges = () =>
    save.mutate(changes, {
      onSuccess: (answer) => {
        const next = draftOf(answer);
        setSaved(next);
        setDraft(next);
      },
    });
  const blocker = useBlocker({
    shouldBlockFn: () => dirty,
    enableBeforeUnload: () => dirty,
    withResolver: true,
  });
  const canSave = canWrite && dirty && !('error' in customFields) && draft.title.trim() !== '';
  useHotkeys([['mod+S', () => canSave && saveChanges()]], []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (canSave) saveChanges();
  };
  const error = save.isError ? describeError(save.error) : null;
  const field = (key: CaseField) => (
    <Select
      key={key}
      label={FIELD_LABELS[key]}
      data={optionsOf(CASE_FIELDS[key])}
      value={draft[key]}
      onChange={(value) => value && set(key, value)}
      allowDeselect={false}
      readOnly={!canWrite}
    />
  );

  const prose = (key: 'description' | 'preconditions' | 'postconditions', label: string) => (
    <Textarea
      label={label}
      autosize
      minRows={2}
      value={draft[key]}
      readOnly={!canWrite}
      onChange={(event) => set(key, event.currentTarget.value)}
    />
  );

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            <AnchorLink
              to="/projects/$projectId/cases"
              params={{ projectId }}
              search={{}}
              size="sm"
              underline="always"
            >
              Test cases
            </AnchorLink>
            {testCase.metadata.suite ? ` › ${testCase.metadata.suite.name}` : ''} ›{' '}
            <span className="mono">{testCase.caseId}</span> · revision {testCase.revision}
          </Text>
          <Title order={1} size="h2">
            {testCase.title}
          </Title>
        </Stack>
        {canWrite ? (
          <Group gap="xs">
            {dirty ? (
              <Text size="sm" c="dimmed" role="status">
                Unsaved changes
              </Text>
            ) : null}
            <Button
              variant="default"
              disabled={!dirty}
              onClick={() => {
                setDraft(saved);
                save.reset();
              }}
            >
              Discard
            </Button>
            <Button
              type="submit"
              form="case-form"
              variant="default"
              leftSection={<IconDeviceFloppy size={16} aria-hidden />}
              disabled={!canSave}
              loading={save.isPending}
              title="Save (Ctrl+S)"
            >
              Save
            </Button>
          </Group>
        ) : null}
      </Group>
      {error ? (
        <Alert color="red" variant="light" title={error.title} role="alert">
          {error.message}
        </Alert>
      ) : null}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <form id="case-form" onSubmit={submit}>
            <Stack>
              <TextInput
                label="Title"
                required
                maxLength={500}
                value={draft.title}
                readOnly={!canWrite}
                onChange={(event) => set('title', event.currentTarget.value)}
              />
              {prose('description', 'Description')}
              <SimpleGrid cols={2}>
                {prose('preconditions', 'Preconditions')}
                {prose('postconditions', 'Postconditions')}
              </SimpleGrid>
              <Card withBorder>
                <Stack gap="xs">
                  <Group justify="space-between">
                    <Title order={2} size="h4">
                      Steps
                    </Title>
                    <SegmentedControl
                      aria-label="Step format"
                      size="xs"
                      data={['Classic', 'Gherkin']}
                      value={draft.stepFormat}
                      readOnly={!canWrite}
                      onChange={(value) => set('stepFormat', value as StepFormat)}
                    />
                  </Group>
                  <StepsEditor
                    format={draft.stepFormat}
                    steps={draft.stepFormat === 'Classic' ? draft.classic : draft.gherkin}
                    onChange={(steps) => set(draft.stepFormat === 'Classic' ? 'classic' : 'gherkin', steps)}
                    readOnly={!canWrite}
                  />
                </Stack>
              </Card>
              <Card withBorder>
                <Stack gap="xs">
                  <Title order={2} size="h4">
                    Classification
                  </Title>
                  <SimpleGrid cols={{ base: 2, md: 4 }}>
                    {(Object.keys(CASE_FIELDS) as CaseField[]).map(field)}
                  </SimpleGrid>
                  <Checkbox.Group
                    label="Flags"
                    value={draft.flags}
                    onChange={(value) =>
                      canWrite &&
                      set(
                        'flags',
                        FLAGS.filter((flag) => value.includes(flag)),
                      )
                    }
                  >
                    <Group mt={4}>
                      {FLAGS.map((flag) => (
                        <Checkbox key={flag} value={flag} label={flag} disabled={!canWrite} />
                      ))}
                    </Group>
                  </Checkbox.Group>
                  <TagsInput
                    label="Tags"
                    placeholder={canWrite ? 'Type a tag, then Enter' : undefined}
                    value={draft.tags}
                    onChange={(value) => set('tags', value)}
                    readOnly={!canWrite}
                    maxTags={100}
                    splitChars={[',']}
                  />
                  <JsonInput
                    label="Custom fields"
                    description='A JSON object, e.g. {"browser": "Safari"}'
                    autosize
                    minRows={2}
                    value={draft.customFields}
                    readOnly={!canWrite}
                    onChange={(value) => set('customFields', value)}
                    error={'error' in customFields ? customFields.error : undefined}
                  />
                </Stack>
              </Card>
            </Stack>
          </form>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Stack>
            <LinkedTests projectId={projectId} testCase={testCase} />
            <Attachments projectId={projectId} testCase={testCase} canWrite={canWrite} />
            <Issues projectId={projectId} testCase={testCase} canWrite={canWrite} />
            <Comments projectId={projectId} testCase={testCase} canWrite={canWrite} />
            <History testCase={testCase} />
          </Stack>
        </Grid.Col>
      </Grid>
      <Modal
        opened={blocker.status === 'blocked'}
        onClose={() => blocker.reset?.()}
        title="Leave without saving?"
      >
        <Stack>
          <Text size="sm">This case has changes that are not saved. Leaving now loses them.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => blocker.reset?.()} data-autofocus>
              Stay
            </Button>
            <Button color="red" onClick={() => blocker.proceed?.()}>
              Leave and lose changes
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

function LinkedTests({ projectId, testCase }: { projectId: string; testCase: ManualCaseDetail }) {
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={2} size="h4">
          Automated tests
        </Title>
        {testCase.linkedTests.length === 0 ? (
          <Text size="sm" c="dimmed">
            None yet: an automated test links itself by naming{' '}
            <span className="mono">@{testCase.caseId}</span> in its title or tags.
          </Text>
        ) : (
          testCase.linkedTests.map((test) => (
            <Group key={test._id} gap="xs" wrap="nowrap" justify="space-between">
              {test.lastResult ? (
                // The test's page in the run of its latest result: its error, attempts and history.
                <AnchorLink
                  to="/projects/$projectId/runs/$runId/tests/$caseId"
                  params={{ projectId, runId: test.lastResult.runId, caseId: test.testCaseId }}
                  size="sm"
                  lineClamp={2}
                  title={test.fullTitle}
                >
                  {test.displayTitle}
                </AnchorLink>
              ) : (
                <Text size="sm">{test.displayTitle}</Text>
              )}
              {test.lastResult ? (
                <Group gap={4} wrap="nowrap">
                  <StatusBadge status={test.lastResult.status} size="xs" />
                  <Text size="xs" c="dimmed" title={formatTime(test.lastResult.at)}>
                    {formatAgo(test.lastResult.at)}
                  </Text>
                </Group>
              ) : null}
            </Group>
          ))
        )}
      </Stack>
    </Card>
  );
}

const ATTACHMENT_WORDS: GalleryWords = {
  title: 'Attachments',
  headingOrder: 2,
  attachLabel: 'Attach a file',
  listLabel: 'Attached files',
  empty: 'No attachment.',
  emptyForWriters: 'No attachment. Attach screenshots or files, or drop them here.',
  removeTitle: 'Remove attachment',
  removeQuestion: (file) =>
    `Remove ${file.originalFileName} from this case? The file is deleted; the history keeps the removal.`,
};

function Attachments({
  projectId,
  testCase,
  canWrite,
}: {
  projectId: string;
  testCase: ManualCaseDetail;
  canWrite: boolean;
}) {
  const attachments = useCaseAttachments(projectId, testCase._id);
  return (
    <AttachmentGallery
      words={ATTACHMENT_WORDS}
      attachments={testCase.attachments}
      canWrite={canWrite}
      columns={2}
      onChanged={attachments.refresh}
      upload={attachments.upload}
      remove={(file) => attachments.remove(file._id)}
    />
  );
}

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
}: {
  projectId: string;
  testCase: ManualCaseDetail;
  canWrite: boolean;
  title: string;
  none: string;
  /** The list, or null when there is none yet. */
  list: ReactNode;
  /** The PATCH field that appends one. */
  appends: 'issues' | 'comments';
  input: { label: string; placeholder?: string; maxLength: number; multiline: boolean };
  submit: string;
}) {
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
        ) : null}
      </Stack>
    </Card>
  );
}

function Issues(props: { projectId: string; testCase: ManualCaseDetail; canWrite: boolean }) {
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

function Comments(props: { projectId: string; testCase: ManualCaseDetail; canWrite: boolean }) {
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

const short = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? '—' : text.length > 80 ? `${text.slice(0, 77)}…` : text || '—';
};

const HISTORY_KINDS: Record<ManualCaseDetail['history'][number]['kind'], string> = {
  created: 'created',
  updated: 'edited',
  commented: 'commented',
  'attachment-added': 'file attached',
  'attachment-removed': 'file removed',
};

function History({ testCase }: { testCase: ManualCaseDetail }) {
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
              <Text size="xs" c="dimmed">
                {entry.by ? `${entry.by.firstName} ${entry.by.lastName}` : 'Someone'} ·{' '}
                <span title={formatTime(entry.at)}>{formatAgo(entry.at)}</span>
              </Text>
              {Object.entries(entry.changes).map(([name, change]) =>
                name === 'attachments' ? (
                  // An attachment entry's change is the file's name coming (added) or going (removed).
                  <Text key={name} size="xs">
                    {short(change.to ?? change.from)}
                  </Text>
                ) : (
                  <Text key={name} size="xs">
                    <b>{name}</b>: {short(change.from)} → {short(change.to)}
                  </Text>
                ),
              )}
              {entry.comments.map((comment, i) => (
                <Text key={i} size="xs">
                  Comment: {short(comment)}
                </Text>
              ))}
              {entry.issuesLinked.length > 0 ? (
                <Text size="xs">Issues linked: {entry.issuesLinked.join(', ')}</Text>
              ) : null}
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
