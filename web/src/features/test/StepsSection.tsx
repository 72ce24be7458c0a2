/** The attempt's whole step tree; steps that failed start open. */
import { Box, Group, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { useState } from 'react';
import type { TestBundle } from '../../api/queries';
import { formatDuration } from '../../components/format';
import { ToneText } from '../../components/Tone';
import { Section } from './Section';
import classes from './TestPage.module.css';

interface Step {
  title: string;
  category?: string;
  durationMs: number;
  error?: { message: string };
  location?: { file: string; line: number; column?: number };
  steps?: Step[];
}
function StepNode({ step, depth }: { step: Step; depth: number }) {
  const [open, setOpen] = useState(Boolean(step.error));
  const children = step.steps ?? [];
  return (
    <Box role="treeitem" aria-expanded={children.length > 0 ? open : undefined} aria-selected={false}>
      <Group gap={4} wrap="nowrap" pl={depth * 16} className={step.error ? classes.failedStep : classes.step}>
        {children.length > 0 ? (
          <UnstyledButton
            onClick={() => setOpen(!open)}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${step.title}`}
            className={classes.toggle}
          >
            {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          </UnstyledButton>
        ) : (
          <Box w={14} />
        )}
        <ToneText
          size="sm"
          tone={step.error ? 'red' : 'plain'}
          fw={step.error ? 600 : 400}
          style={{ flex: 1 }}
          lineClamp={2}
        >
          {step.title}
        </ToneText>
        {step.location ? (
          <Text size="xs" c="dimmed" className="mono" visibleFrom="md">
            {step.location.file.split('/').at(-1)}:{step.location.line}
          </Text>
        ) : null}
        <Text size="xs" c="dimmed" w={64} ta="right">
          {formatDuration(step.durationMs)}
        </Text>
      </Group>
      {open && children.length > 0 ? (
        <Box role="group">
          {children.map((child, index) => (
            <StepNode key={index} step={child} depth={depth + 1} />
          ))}
        </Box>
      ) : null}
    </Box>
  );
}

export function StepsSection({ bundle }: { bundle: TestBundle }) {
  const steps = (bundle.steps ?? []) as Step[];
  return (
    <Section title="Steps">
      {steps.length === 0 ? (
        <Text size="sm" c="dimmed">
          The runner reported no steps.
        </Text>
      ) : (
        <Box role="tree" aria-label="Steps">
          {steps.map((step, index) => (
            <StepNode key={index} step={step} depth={0} />
          ))}
        </Box>
      )}
    </Section>
  );
}
