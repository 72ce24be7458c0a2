/** The attempt picker, the trace viewer link, the test's quarantine (or the button to make one) and the debug bundle to copy. */
import { Button, Group, SegmentedControl } from '@mantine/core';
import { IconExternalLink, IconRoute } from '@tabler/icons-react';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import type { TestBundle } from '../../api/queries';
import { CopyFetched } from '../../components/CopyButton';
import { loadTestMarkdown } from './api';
import { QuarantineControl } from './QuarantineControl';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId/tests/$caseId');

export function TestActions({ bundle }: { bundle: TestBundle }) {
  const { projectId, runId, caseId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/runs/$runId/tests/$caseId' });
  const { test, meta, links } = bundle;
  const attempts = Array.from({ length: meta.attempts }, (_, index) => index);
  return (
    <Group gap="xs">
      {meta.attempts > 1 ? (
        <SegmentedControl
          aria-label="Attempt"
          size="xs"
          value={String(meta.attempt)}
          data={attempts.map((attempt) => ({
            value: String(attempt),
            label: attempt === 0 ? 'First try' : `Retry ${attempt}`,
          }))}
          onChange={(value) =>
            void navigate({
              search: (previous) => ({ ...previous, attempt: Number(value) }),
              replace: true,
            })
          }
        />
      ) : null}
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
