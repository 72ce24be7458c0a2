/** The attempt's error: message, code snippet and the stack (open at first, folds away). */
import { Box, Collapse, Group, Paper, ScrollArea, Stack, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import type { RunFailure, TestBundle } from '../../api/queries';
import { QuarantineNote } from '../../components/QuarantineNote';
import { SignatureLink } from '../../components/SignatureLink';
import { VerdictBadge } from '../../components/VerdictBadge';
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

/** The failure's verdict against the run's base and its error group, when the run's failures name it. */
function FailureVerdictLine({ failure, projectId }: { failure: RunFailure; projectId: string }) {
  return (
    <Group gap="xs" aria-label="Verdict">
      <VerdictBadge verdict={failure.verdict} size="sm" />
      <QuarantineNote quarantine={failure.quarantine} />
      {failure.signature ? (
        <>
          <Text size="xs" c="dimmed">
            Error group
          </Text>
          <SignatureLink projectId={projectId} signature={failure.signature} />
        </>
      ) : null}
    </Group>
  );
}

export function ErrorSection({
  bundle,
  failure,
  projectId,
}: {
  bundle: TestBundle;
  /** The test's failure in the run, with its verdict and signature (include=failures). */
  failure?: RunFailure | undefined;
  projectId: string;
}) {
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
        {failure ? <FailureVerdictLine failure={failure} projectId={projectId} /> : null}
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
