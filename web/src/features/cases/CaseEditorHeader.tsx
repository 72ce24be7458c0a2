/** The case editor's head: where the case is, its title and revision, and for a writer Discard and Save. */
import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import type { ManualCaseDetail } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import type { CaseEditorState } from './useCaseEditor';

export function CaseEditorHeader({
  projectId,
  testCase,
  canWrite,
  editor,
}: {
  projectId: string;
  testCase: ManualCaseDetail;
  canWrite: boolean;
  editor: CaseEditorState;
}) {
  const { dirty, canSave, save } = editor;
  return (
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
        <SaveButtons dirty={dirty} canSave={canSave} saving={save.isPending} onDiscard={editor.discard} />
      ) : null}
    </Group>
  );
}

function SaveButtons({
  dirty,
  canSave,
  saving,
  onDiscard,
}: {
  dirty: boolean;
  canSave: boolean;
  saving: boolean;
  onDiscard: () => void;
}) {
  return (
    <Group gap="xs">
      {dirty ? (
        <Text size="sm" c="dimmed" role="status">
          Unsaved changes
        </Text>
      ) : null}
      <Button variant="default" disabled={!dirty} onClick={onDiscard}>
        Discard
      </Button>
      <Button
        type="submit"
        form="case-form"
        variant="default"
        leftSection={<IconDeviceFloppy size={16} aria-hidden />}
        disabled={!canSave}
        loading={saving}
        title="Save (Ctrl+S)"
      >
        Save
      </Button>
    </Group>
  );
}
