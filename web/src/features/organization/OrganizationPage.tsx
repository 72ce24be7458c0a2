/** The organization of a project: its plan and its usage this billing period (spec §4.8), per project. */
import { Badge, Group, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { ErrorState, LoadingState } from '../../components/states';
import { usageQuery } from './api';
import { PeriodUsage } from './PeriodUsage';
import { ProjectUsage } from './ProjectUsage';

const route = getRouteApi('/signed-in/projects/$projectId/organization');

export function OrganizationPage() {
  const { projectId } = route.useParams();
  const usage = useQuery(usageQuery(projectId));
  if (usage.isPending) return <LoadingState label="Loading usage…" />;
  if (usage.isError) return <ErrorState error={usage.error} onRetry={() => void usage.refetch()} />;
  const data = usage.data;
  return (
    <Stack>
      <Group gap="sm">
        <Title order={1} size="h2">
          {data.orgName}
        </Title>
        <Badge variant="light">{data.planName}</Badge>
      </Group>
      <PeriodUsage data={data} />
      <ProjectUsage projects={data.projectUsage} projectId={projectId} />
    </Stack>
  );
}
