/** The steps just before and after the failing one, the failing step and its error between them. */
import { Group, Stack, Text } from '@mantine/core';
import type { TestBundle } from '../../api/queries';
import { formatDuration } from '../../components/format';
import { ToneText } from '../../components/Tone';
import { Section } from './Section';
import classes from './TestPage.module.css';

type WindowStep = TestBundle['failureWindow']['before'][number];

function WindowRow({ step, failed }: { step: WindowStep; failed?: boolean }) {
  return (
    <Group gap="xs" wrap="nowrap" pl={step.depth * 16} className={failed ? classes.failedStep : classes.step}>
      <ToneText
        size="sm"
        fw={failed ? 700 : 400}
        tone={failed ? 'red' : 'plain'}
        style={{ flex: 1 }}
        lineClamp={2}
      >
        {step.title}
      </ToneText>
      {step.category ? (
        <Text size="xs" c="dimmed" className="mono">
          {step.category}
        </Text>
      ) : null}
      <Text size="xs" c="dimmed" w={64} ta="right">
        {formatDuration(step.durationMs)}
      </Text>
    </Group>
  );
}

export function FailureWindowSection({ bundle }: { bundle: TestBundle }) {
  const { before, failed, after } = bundle.failureWindow;
  if (!failed && before.length === 0) return null;
  return (
    <Section title="Failure window">
      <Stack gap={0}>
        {before.map((step, index) => (
          <WindowRow key={`b${index}`} step={step} />
        ))}
        {failed ? <WindowRow step={failed} failed /> : null}
        {failed?.error ? (
          <ToneText size="xs" tone="red" className="mono" pl={failed.depth * 16 + 8} py={4}>
            {failed.error}
          </ToneText>
        ) : null}
        {after.map((step, index) => (
          <WindowRow key={`a${index}`} step={step} />
        ))}
      </Stack>
    </Section>
  );
}
