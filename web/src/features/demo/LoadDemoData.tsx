/**
 * "Load demo data", on a project without runs: 30 days of a demo shop's Playwright runs (main and two
 * branches, with flaky tests, a regression and its commit, recurring errors, a slow-down), sent through the
 * API as a reporter would, so every page shows something before the first run of one's own. Only for
 * people who may write in the project.
 */
import { Alert, Button, Progress, Stack, Text } from '@mantine/core';
import type { DemoLoadProgress } from '@verdict/client/demo';
import { useState } from 'react';
import { describeError } from '../../api/client';
import { useCanWrite } from '../../api/role';
import { useLoadDemoData } from './api';

export function LoadDemoData({ projectId }: { projectId: string }) {
  const canWrite = useCanWrite(projectId);
  const [progress, setProgress] = useState<Pick<DemoLoadProgress, 'done' | 'total'> | null>(null);
  const load = useLoadDemoData(projectId, ({ done, total }) => setProgress({ done, total }));
  if (!canWrite) return null;
  const error = load.isError ? describeError(load.error) : null;
  return (
    <Stack gap="xs" align="center" mt="md">
      <Text size="sm" c="dimmed" ta="center" maw={520}>
        Or look around first: fill this project with 30 days of a demo shop&apos;s runs, with flaky tests, a
        regression and its commit, recurring errors and a slow-down.
      </Text>
      <Button variant="light" loading={load.isPending} onClick={() => load.mutate()}>
        Load demo data
      </Button>
      {load.isPending && progress ? (
        <Stack gap={4} w={320}>
          <Progress
            value={(progress.done / progress.total) * 100}
            aria-label="Demo runs loaded"
            transitionDuration={200}
          />
          <Text size="xs" c="dimmed" ta="center" aria-live="polite">
            {progress.done} of {progress.total} runs sent
          </Text>
        </Stack>
      ) : null}
      {error ? (
        <Alert color="red" title={error.title} role="alert" maw={520}>
          {error.message}
        </Alert>
      ) : null}
    </Stack>
  );
}
