import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { AnchorLink } from '../../components/AnchorLink';
import { sessionQuery } from '../../api/queries';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';

/** The projects this session reaches, by organization. */
export function ProjectsPage() {
  const session = useQuery(sessionQuery());
  if (session.isPending) return <LoadingState label="Loading your projects…" />;
  if (session.isError) return <ErrorState error={session.error} onRetry={() => void session.refetch()} />;
  const projects = session.data.projects;
  const organizations = [...new Set(projects.map((project) => project.organizationName))];
  return (
    <Stack>
      <Title order={1} size="h2">
        Projects
      </Title>
      {projects.length === 0 ? (
        <EmptyState title="No projects yet">
          Your token reaches no project. Ask an administrator for a token scoped to your projects.
        </EmptyState>
      ) : (
        organizations.map((organization) => (
          <Stack key={organization} gap="xs">
            <Title order={2} size="h4" c="dimmed">
              {organization}
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
              {projects
                .filter((project) => project.organizationName === organization)
                .map((project) => (
                  <Card key={project.id} withBorder padding="md">
                    <Group justify="space-between" wrap="nowrap">
                      <AnchorLink to="/projects/$projectId/runs" params={{ projectId: project.id }} fw={600}>
                        {project.name}
                      </AnchorLink>
                      <Badge variant="outline" color="gray" size="sm">
                        {project.role ?? 'no role'}
                      </Badge>
                    </Group>
                    <Text size="xs" c="dimmed" className="mono" mt={4}>
                      {project.id}
                    </Text>
                  </Card>
                ))}
            </SimpleGrid>
          </Stack>
        ))
      )}
    </Stack>
  );
}
