/**
 * "Compared with": what changed between the run and its base (by default the latest finished run of the
 * run's base branch that started before it), a count per category and its tests when opened. The base can
 * be another branch or a run of the project (kept in the URL); a run without a base says why.
 */
import { Accordion, Alert, Badge, Card, Group, Skeleton, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { AnchorLink } from '../../components/AnchorLink';
import { formatAgo, formatNumber, shortSha } from '../../components/format';
import { ErrorState } from '../../components/states';
import { badgeToneVars } from '../../components/Tone';
import { comparisonQuery, type RunComparison } from './api';
import { BasePicker, type BaseChoice } from './BasePicker';
import { CATEGORIES, CompareCategory } from './CompareCategory';

function BaseLine({ comparison, projectId }: { comparison: RunComparison; projectId: string }) {
  const { base } = comparison;
  if (!base) return null;
  return (
    <Text size="sm">
      <AnchorLink to="/projects/$projectId/runs/$runId" params={{ projectId, runId: base.id }} fw={600}>
        Run #{base.counter}
      </AnchorLink>{' '}
      on {base.branch ?? 'no branch'} · <span className="mono">{shortSha(base.commit?.sha)}</span>
      {base.commit?.message ? ` ${base.commit.message.split('\n')[0]}` : ''} · {formatAgo(base.startedAt)}
    </Text>
  );
}

function Categories({ comparison, projectId }: { comparison: RunComparison; projectId: string }) {
  const where = { projectId, runId: comparison.run.id, baseRunId: comparison.base?.id ?? null };
  return (
    <Accordion multiple variant="separated" chevronPosition="left">
      {CATEGORIES.map(({ key, label, tone }) => {
        const category = comparison[key];
        return (
          <Accordion.Item key={key} value={key}>
            <Accordion.Control disabled={category.count === 0}>
              <Group gap="xs">
                <Text size="sm" fw={600}>
                  {label}
                </Text>
                <Badge
                  size="sm"
                  variant="light"
                  color={category.count ? tone : 'gray'}
                  vars={badgeToneVars(category.count ? tone : 'gray')}
                >
                  {formatNumber(category.count)}
                </Badge>
              </Group>
            </Accordion.Control>
            <Accordion.Panel>
              <CompareCategory category={key} items={category.items} count={category.count} where={where} />
            </Accordion.Panel>
          </Accordion.Item>
        );
      })}
    </Accordion>
  );
}

export function ComparePanel({
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
  const query = choice.base
    ? { base: choice.base }
    : choice.baseBranch
      ? { baseBranch: choice.baseBranch }
      : {};
  const comparison = useQuery(comparisonQuery(projectId, runId, query));
  return (
    <Card withBorder padding="md" component="section" aria-label="Compared with">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h4">
          Compared with
        </Title>
        <BasePicker projectId={projectId} runId={runId} choice={choice} onChoice={onChoice} />
      </Group>
      {comparison.isPending ? (
        <Skeleton h={80} aria-busy="true" aria-label="Comparing…" />
      ) : comparison.isError ? (
        <ErrorState error={comparison.error} onRetry={() => void comparison.refetch()} />
      ) : comparison.data.base === null ? (
        <Alert variant="light" color="gray" title="No base to compare with">
          {comparison.data.noBaseReason ?? 'No finished run to compare with.'}
        </Alert>
      ) : (
        <>
          <BaseLine comparison={comparison.data} projectId={projectId} />
          <Text size="xs" c="dimmed" mb="xs">
            Slower: more than {comparison.data.thresholds.durationRatio}× the base and{' '}
            {formatNumber(comparison.data.thresholds.durationFloorMs)} ms longer.
          </Text>
          <Categories comparison={comparison.data} projectId={projectId} />
        </>
      )}
    </Card>
  );
}
