/** The attempt's error: message, code snippet and the stack (open at first, folds away). */
import { Box, Collapse, Group, Paper, ScrollArea, Stack, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import type { TestBundle } from '../../api/queries';
import { plain } from './plain';
import { Section } from './Section';
import classes from './TestPage.module.css';

function StackTrace({ stack }: { stack: string }) {
  const [showStack, { toggle }] = useDisclosure(true);
  return (
    <Box>
      <UnstyledButton onClick={toggle} aria-expanded={showStack} className={classes.toggle}>
        <Group gap={4}>
          {showStack ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          <Text size="sm" fw={600}>
            Stack
          </Text>
        </Group>
      </UnstyledButton>
      <Collapse expanded={showStack}>
        <ScrollArea.Autosize mah={260} mt={4}>
          <pre className="pre">{plain(stack)}</pre>
        </ScrollArea.Autosize>
      </Collapse>
    </Box>
  );
}

export function ErrorSection({ bundle }: { bundle: TestBundle }) {
  const error = bundle.error;
  if (!error) {
    return (
      <Section title="Error">
        <Text size="sm" c="dimmed">
          This attempt did not fail.
        </Text>
      </Section>
    );
  }
  return (
    <Section
      title="Error"
      right={
        error.location ? (
          <Text size="xs" c="dimmed" className="mono">
            {error.location.file}:{error.location.line}
          </Text>
        ) : null
      }
    >
      <Stack gap="sm">
        <Paper p="sm" className={classes.error} data-testid="error-message">
          <pre className="pre">{plain(error.message)}</pre>
        </Paper>
        {error.snippet ? (
          <Paper p="sm" withBorder>
            <pre className="pre">{plain(error.snippet)}</pre>
          </Paper>
        ) : null}
        {error.stack ? <StackTrace stack={error.stack} /> : null}
      </Stack>
    </Section>
  );
}
