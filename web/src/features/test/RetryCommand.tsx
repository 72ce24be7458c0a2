/** The command that runs the test again locally, with a copy button. */
import { Box, Code, Group, Paper, Text } from '@mantine/core';
import { CopyText } from '../../components/CopyButton';
import classes from './TestPage.module.css';

export function RetryCommand({ command }: { command: string }) {
  return (
    <Paper withBorder p="sm">
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Box style={{ minWidth: 0 }}>
          <Text size="xs" c="dimmed" fw={600} tt="uppercase">
            Run it again locally
          </Text>
          <Code block className={classes.command} data-testid="retry-command">
            {command}
          </Code>
        </Box>
        <CopyText value={command} label="Copy command" />
      </Group>
    </Paper>
  );
}
