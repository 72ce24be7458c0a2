import { Button, CopyButton as MantineCopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';

/** Copies a fixed text. */
export function CopyText({ value, label }: { value: string; label: string }) {
  return (
    <MantineCopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Button
          size="xs"
          variant={copied ? 'light' : 'default'}
          color={copied ? 'teal' : undefined}
          leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
          onClick={copy}
        >
          {copied ? 'Copied' : label}
        </Button>
      )}
    </MantineCopyButton>
  );
}

/** Copies a text fetched when clicked (the debug bundle's Markdown), so nothing is asked for up front. */
export function CopyFetched({
  load,
  label,
  icon,
}: {
  load: () => Promise<string>;
  label: string;
  icon?: ReactNode;
}) {
  const [state, setState] = useState<'idle' | 'loading' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    setState('loading');
    try {
      // The clipboard accepts a promise of the text, so the copy keeps the click's user activation.
      const text = load();
      if (typeof ClipboardItem !== 'undefined' && navigator.clipboard.write) {
        const blob = text.then((value) => new Blob([value], { type: 'text/plain' }));
        // The clipboard may refuse before it reads the blob: its failure is the copy's, handled below.
        blob.catch(() => undefined);
        await navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
      } else {
        await navigator.clipboard.writeText(await text);
      }
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <Tooltip label={state === 'failed' ? 'Could not copy' : 'Markdown for an issue or an AI assistant'}>
      <Button
        size="xs"
        variant={state === 'copied' ? 'light' : 'default'}
        color={state === 'copied' ? 'teal' : state === 'failed' ? 'red' : undefined}
        loading={state === 'loading'}
        leftSection={state === 'copied' ? <IconCheck size={14} /> : (icon ?? <IconCopy size={14} />)}
        onClick={() => void copy()}
      >
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
      </Button>
    </Tooltip>
  );
}
