import { getRouteApi } from '@tanstack/react-router';
/** The organization of a project: its plan and its usage this billing period (spec §4.8), per project. */
import { Badge, Card, Group, Progress, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { usageQuery } from './api';
import { Figure } from '../../components/Figure';
import { formatDate, formatNumber } from '../../components/format';
import { ErrorState, LoadingState } from '../../components/states';

const route = getRouteApi('/signed-in/projects/$projectId/organization');

export function OrganizationPage() {
  const { projectId } = route.useParams();
  const usage = useQuery(usageQuery(projectId));
  if (usage.isPending) return <LoadingState label="Loading usage…" />;
  if (usage.isError) return <ErrorState error={usage.error} onRetry={() => void usage.refetch()} />;
  const data = usage.data;
  const share = data.orgLimit > 0 ? Math.min(100, (100 * data.orgUsed) / data.orgLimit) : 0;
  return (
    <Stack>
      <Group gap="sm">
        <Title order={1} size="h2">
          {data.orgName}
        </Title>
        <Badge variant="light">{data.planName}</Badge>
      </Group>
      <Card withBorder>
        <Stack gap="xs">
          <Group justify="space-between">
            <Title order={2} size="h4">
              Test cases this period
            </Title>
            <Text size="sm" c="dimmed">
              {formatDate(data.periodStart)} to {formatDate(data.periodEnd)} · resets{' '}
              {formatDate(data.resetDate)}
            </Text>
          </Group>
          <Progress
            value={share}
            color={share >= 90 ? 'red' : share >= 75 ? 'orange' : 'blue'}
            size="lg"
            aria-label={`${formatNumber(data.orgUsed)} of ${formatNumber(data.orgLimit)} test cases used`}
          />
          <SimpleGrid cols={{ base: 2, md: 4 }} spacing="xs">
            <Figure label="Used" value={formatNumber(data.orgUsed)} />
            <Figure label="Limit" value={formatNumber(data.orgLimit)} />
            <Figure
              label="Remaining"
              value={formatNumber(data.orgRemaining)}
              tone={data.orgRemaining === 0 ? 'red' : undefined}
            />
            <Figure
              label="Unallocated"
              value={formatNumber(data.unallocatedPool)}
              hint="shared by projects without an allocation"
            />
          </SimpleGrid>
        </Stack>
      </Card>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Projects
        </Title>
        <Table striped aria-label="Usage by project">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Project</Table.Th>
              <Table.Th ta="right">Allocated</Table.Th>
              <Table.Th ta="right">Used</Table.Th>
              <Table.Th ta="right">Remaining</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.projectUsage.map((project) => (
              <Table.Tr key={project.id} aria-current={project.id === projectId ? 'true' : undefined}>
                <Table.Td>
                  <Text size="sm" fw={project.id === projectId ? 700 : 400}>
                    {project.name}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  {'allocated' in project ? formatNumber(project.allocated) : '—'}
                </Table.Td>
                <Table.Td ta="right">{formatNumber(project.used)}</Table.Td>
                <Table.Td ta="right">
                  {'remaining' in project ? formatNumber(project.remaining) : '—'}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
    </Stack>
  );
}
