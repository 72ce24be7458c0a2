import { Group, Text } from '@mantine/core';
import { IconFingerprint } from '@tabler/icons-react';
import { AnchorLink } from './AnchorLink';

/**
 * A link to an error group (every failure with the same signature, across runs): its short id, and the
 * readable signature as its title; `label` replaces the id (the run page's groups say "Error group").
 */
export function SignatureLink({
  projectId,
  signature,
  label,
}: {
  projectId: string;
  signature: { id: string; text: string };
  label?: string;
}) {
  return (
    <AnchorLink
      to="/projects/$projectId/errors/$signatureId"
      params={{ projectId, signatureId: signature.id }}
      size="xs"
      title={signature.text}
      aria-label={`Error group ${signature.id}: ${signature.text}`}
    >
      <Group gap={2} wrap="nowrap" component="span">
        <IconFingerprint size={12} aria-hidden />
        <Text span size="xs" className="mono">
          {label ?? signature.id}
        </Text>
      </Group>
    </AnchorLink>
  );
}
