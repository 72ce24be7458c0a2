/**
 * The signed-in person's own personal access tokens (docs/web.md "Your tokens"): listed with their
 * projects, creation, expiry and last use; issued with a name, an expiry and projects (the secret shown
 * once, to copy); revoked after a confirmation. Every role may have tokens: each acts with the person's
 * role in each project, so a viewer's tokens only read.
 */
import { Button, Code, Group, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { sessionQuery, type OwnToken } from '../../api/queries';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { SecretOnceDialog } from '../../components/SecretOnceDialog';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { ownTokensQuery, useRevokeToken } from './api';
import { IssueTokenDialog } from './IssueTokenDialog';
import { TokensTable } from './TokensTable';

export function OwnTokensSection({ projectId }: { projectId: string }) {
  const tokens = useQuery(ownTokensQuery());
  const session = useQuery(sessionQuery());
  const [issuing, setIssuing] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<OwnToken | null>(null);

  return (
    <Stack gap="sm" component="section" aria-label="Your tokens">
      <TokensHeader onNew={() => setIssuing(true)} disabled={!session.data} />
      <Text size="sm" c="dimmed">
        Personal access tokens for the API, the CLI and the reporters. A token acts as you, with your role in
        each of its projects: a viewer’s token only reads. Every token expires; revoke one you no longer use.
      </Text>
      {tokens.isPending ? (
        <LoadingState rows={2} />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <EmptyState title="No token yet">Issue one for a script or a CI job.</EmptyState>
      ) : (
        <TokensTable tokens={tokens.data} projects={session.data?.projects ?? []} onRevoke={setRevoking} />
      )}
      {issuing && session.data ? (
        <IssueTokenDialog
          projectId={projectId}
          projects={session.data.projects}
          onClose={() => setIssuing(false)}
          onIssued={(issued) => {
            setIssuing(false);
            setSecret(issued);
          }}
        />
      ) : null}
      <SecretOnceDialog secret={secret} title="Your new token" name="token" onClose={() => setSecret(null)}>
        Send it as <Code>Authorization: Bearer …</Code>.
      </SecretOnceDialog>
      {revoking ? <RevokeDialog token={revoking} onClose={() => setRevoking(null)} /> : null}
    </Stack>
  );
}

function TokensHeader({ onNew, disabled }: { onNew: () => void; disabled: boolean }) {
  return (
    <Group justify="space-between">
      <Title order={2} size="h3">
        Your tokens
      </Title>
      <Button
        variant="default"
        leftSection={<IconPlus size={16} aria-hidden />}
        onClick={onNew}
        disabled={disabled}
      >
        New token
      </Button>
    </Group>
  );
}

function RevokeDialog({ token, onClose }: { token: OwnToken; onClose: () => void }) {
  const revoke = useRevokeToken(token, onClose);
  return (
    <ConfirmDialog
      opened
      title={`Revoke ${token.name ?? 'this token'}?`}
      confirmLabel="Revoke token"
      pending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutate()}
      onClose={onClose}
    >
      {token.current
        ? 'This is the token you signed in with: revoking it signs you out here, and everything using it stops working at once.'
        : 'Everything using it stops working at once. This cannot be undone.'}
    </ConfirmDialog>
  );
}
