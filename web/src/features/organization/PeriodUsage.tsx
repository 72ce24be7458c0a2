/** The organization's test cases this billing period: a bar against the limit and its figures. */
import { Card, Group, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { Usage } from '../../api/queries';
import { Figure } from '../../components/Figure';
import { formatDate, formatNumber } from '../../components/format';

export function PeriodUsage({ data }: { data: Usage }) {
  const share = data.orgLimit > 0 ? Math.min(100, (100 * data.orgUsed) / data.orgLimit) : 0;
  return (
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
  );
}
