/**
 * The case editor (spec §2, §4.3): every field of a manual case, its steps (Classic or Gherkin, reordered by
 * drag or keyboard), attachments, comments, linked issues, the automated tests that name it with their
 * latest outcome, and its history revision by revision. Edits stay in a draft until "Save" (one PATCH of
 * what changed); leaving with unsaved changes asks first, in the app and when the tab closes.
 */
import { Alert, Button, Grid, Group, Modal, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { describeError } from '../../api/client';
import { manualCaseQuery } from '../../api/manual';
import type { ManualCaseDetail } from '../../api/queries';
import { useCanWrite } from '../../api/role';
import { ErrorState, LoadingState } from '../../components/states';
import { CaseAttachments } from './CaseAttachments';
import { CaseEditorHeader } from './CaseEditorHeader';
import { CaseForm } from './CaseForm';
import { CaseHistory } from './CaseHistory';
import { Comments, Issues } from './IssuesAndComments';
import { LinkedTests } from './LinkedTests';
import { useCaseEditor, type CaseEditorState } from './useCaseEditor';

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
  const editor = useCaseEditor(projectId, testCase, canWrite);
  const error = editor.save.isError ? describeError(editor.save.error) : null;
  return (
    <Stack>
      <CaseEditorHeader projectId={projectId} testCase={testCase} canWrite={canWrite} editor={editor} />
      {error ? (
        <Alert color="red" variant="light" title={error.title} role="alert">
          {error.message}
        </Alert>
      ) : null}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <CaseForm editor={editor} canWrite={canWrite} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Stack>
            <LinkedTests projectId={projectId} testCase={testCase} />
            <CaseAttachments projectId={projectId} testCase={testCase} canWrite={canWrite} />
            <Issues projectId={projectId} testCase={testCase} canWrite={canWrite} />
            <Comments projectId={projectId} testCase={testCase} canWrite={canWrite} />
            <CaseHistory testCase={testCase} />
          </Stack>
        </Grid.Col>
      </Grid>
      <LeaveDialog blocker={editor.blocker} />
    </Stack>
  );
}

/** Asked when leaving the page with unsaved changes. */
function LeaveDialog({ blocker }: { blocker: CaseEditorState['blocker'] }) {
  return (
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
  );
}
