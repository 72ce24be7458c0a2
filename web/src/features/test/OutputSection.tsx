/** The test's stdout and stderr, one tab each. */
import { ScrollArea, Tabs } from '@mantine/core';
import type { TestBundle } from '../../api/queries';
import { plain } from './plain';
import { Section } from './Section';

export function OutputSection({ bundle }: { bundle: TestBundle }) {
  const stdout = bundle.stdout ?? [];
  const stderr = bundle.stderr ?? [];
  if (stdout.length === 0 && stderr.length === 0) return null;
  return (
    <Section title="Output">
      <Tabs defaultValue={stdout.length > 0 ? 'stdout' : 'stderr'}>
        <Tabs.List>
          <Tabs.Tab value="stdout">stdout ({stdout.length})</Tabs.Tab>
          <Tabs.Tab value="stderr">stderr ({stderr.length})</Tabs.Tab>
        </Tabs.List>
        {(['stdout', 'stderr'] as const).map((name) => (
          <Tabs.Panel key={name} value={name} pt="xs">
            <ScrollArea.Autosize mah={300}>
              <pre className="pre">{plain((name === 'stdout' ? stdout : stderr).join(''))}</pre>
            </ScrollArea.Autosize>
          </Tabs.Panel>
        ))}
      </Tabs>
    </Section>
  );
}
