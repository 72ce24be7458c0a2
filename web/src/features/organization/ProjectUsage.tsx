/** Each project's allocation, use and remainder this period; the current project stands out. */
import { Card, Table, Text, Title } from '@mantine/core';
import type { Usage } from '../../api/queries';
import { formatNumber } from '../../components/format';

export function ProjectUsage({
  projects,
  projectId,
}: {
  projects: Usage['projectUsage'];
  projectId: string;
}) {
  return (
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
          {projects.map((project) => (
            <Table.Tr key={project.id} aria-current={project.id === projectId ? 'true' : undefined}>
              <Table.Td>
                <Text size="sm" fw={project.id === projectId ? 700 : 400}>
                  {project.name}
                </Text>
              </Table.Td>
              <Table.Td ta="right">{'allocated' in project ? formatNumber(project.allocated) : '—'}</Table.Td>
              <Table.Td ta="right">{formatNumber(project.used)}</Table.Td>
              <Table.Td ta="right">{'remaining' in project ? formatNumber(project.remaining) : '—'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
