/** The comparison's base: the run's own base branch (default), another branch, or one run of the project. */
import { Button, Group, Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { filtersQuery } from '../../api/queries';
import { shortSha } from '../../components/format';
import { baseRunsQuery } from './api';
import type { RunSearch } from './search';

export type BaseChoice = Pick<RunSearch, 'base' | 'baseBranch'>;

/** A choice as one Select value: `branch:<name>` or `run:<id>`. */
const valueOf = (choice: BaseChoice) =>
  choice.base ? `run:${choice.base}` : choice.baseBranch ? `branch:${choice.baseBranch}` : null;

function choiceOf(value: string | null): BaseChoice {
  if (value?.startsWith('run:')) return { base: value.slice(4), baseBranch: undefined };
  if (value?.startsWith('branch:')) return { base: undefined, baseBranch: value.slice(7) };
  return { base: undefined, baseBranch: undefined };
}

export function BasePicker({
  projectId,
  runId,
  choice,
  onChoice,
}: {
  projectId: string;
  runId: string;
  choice: BaseChoice;
  onChoice: (choice: BaseChoice) => void;
}) {
  const filters = useQuery(filtersQuery(projectId));
  const runs = useQuery(baseRunsQuery(projectId));
  const data = useMemo(
    () => [
      {
        group: 'Latest run on a branch',
        items: (filters.data?.branches ?? []).map((branch) => ({
          value: `branch:${branch}`,
          label: branch,
        })),
      },
      {
        group: 'A run',
        items: (runs.data ?? [])
          .filter((run) => run.id !== runId)
          .map((run) => ({
            value: `run:${run.id}`,
            label: `#${run.counter} · ${run.branch ?? 'no branch'} · ${shortSha(run.commit?.sha)}`,
          })),
      },
    ],
    [filters.data, runs.data, runId],
  );
  const value = valueOf(choice);
  return (
    <Group gap="xs" wrap="nowrap">
      <Select
        aria-label="Compare with"
        placeholder="The run's base branch"
        size="xs"
        w={280}
        data={data}
        value={value}
        searchable
        nothingFoundMessage="No branch or run matches"
        onChange={(next) => onChoice(choiceOf(next))}
      />
      {value ? (
        <Button size="xs" variant="subtle" onClick={() => onChoice(choiceOf(null))}>
          Back to the base branch
        </Button>
      ) : null}
    </Group>
  );
}
