/** The first cells of a run's row wherever runs are listed: number and title (a link to the run), status, counts. */
import { Table } from '@mantine/core';
import type { RunRecord } from '../api/queries';
import { AnchorLink } from './AnchorLink';
import { RunStatus, StatCounts } from './badges';

type RunLead = Pick<RunRecord, 'id' | 'counter' | 'title' | 'status' | 'outcome' | 'stats'>;

/** `clamp`: the title keeps to one line in a cell at most 320 px wide (a wide table). */
export function RunLeadCells({
  run,
  projectId,
  clamp = false,
}: {
  run: RunLead;
  projectId: string;
  clamp?: boolean;
}) {
  return (
    <>
      <Table.Td maw={clamp ? 320 : undefined}>
        <AnchorLink
          to="/projects/$projectId/runs/$runId"
          params={{ projectId, runId: run.id }}
          fw={600}
          size="sm"
          lineClamp={clamp ? 1 : undefined}
        >
          #{run.counter} {run.title ?? ''}
        </AnchorLink>
      </Table.Td>
      <Table.Td>
        <RunStatus status={run.status} outcome={run.outcome} />
      </Table.Td>
      <Table.Td>
        <StatCounts stats={run.stats} />
      </Table.Td>
    </>
  );
}
