/** The attempt picker, the trace viewer link, the test's quarantine (or the button to make one) and the debug bundle to copy. */
import { Button, Group, SegmentedControl } from '@mantine/core';
import { IconExternalLink, IconRoute } from '@tabler/icons-react';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import type { TestBundle } from '../../api/queries';
import { CopyFetched } from '../../components/CopyButton';
import { loadTestMarkdown } from './api';
import { QuarantineControl } from './QuarantineControl';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId/tests/$caseId');

/** Which attempt of the test the page shows: the first try or a retry. */
function AttemptPicker({ attempts, attempt }: { attempts: number; attempt: number }) {
  const navigate = useNavigate({ from: '/projects/$projectId/runs/$runId/tests/$caseId' });
  return (
    <SegmentedControl
      aria-label="Attempt"
      size="xs"
      value={String(attempt)}
      data={Array.from({ length: attempts }, (_, index) => ({
        value: String(index),
        label: index === 0 ? 'First try' : `Retry ${index}`,
      }))}
      onChange={(value) =>
        void navigate({
          search: (previous) => ({ ...previous, attempt: Number(value) }),
          replace: true,
        })
      }
    />
  );
}

export function TestActions({ bundle }: { bundle: TestBundle }) {
  const { projectId, runId, caseId } = route.useParams();
  const search = route.useSearch();
  const { test, meta, links } = bundle;
  return (
    <Group gap="xs">
      {meta.attempts > 1 ? <AttemptPicker attempts={meta.attempts} attempt={meta.attempt} /> : null}
      {links.traceViewerUrl ? (
        <Button
          component="a"
          href={links.traceViewerUrl}
          target="_blank"
          rel="noreferrer"
          size="xs"
          variant="light"
          leftSection={<IconRoute size={14} />}
          rightSection={<IconExternalLink size={12} />}
        >
          Open trace
        </Button>
      ) : null}
      <QuarantineControl
        projectId={projectId}
        target={{ testCaseId: caseId, title: test.titlePath.join(' › '), project: test.project }}
      />
      <CopyFetched
        label="Copy debug bundle (Markdown)"
        load={() =>
          loadTestMarkdown(projectId, { runId, caseId, attempt: search.attempt, platform: test.project })
        }
      />
    </Group>
  );
}
