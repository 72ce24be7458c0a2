/**
 * The signed-in person's own personal access tokens (docs/web.md "Your tokens"): listed with their
 * projects, creation, expiry and last use; issued with a name, an expiry and projects (the secret shown
 * once, to copy); revoked after a confirmation. Every role may have tokens: each acts with the person's
 * role in each project, so a viewer's tokens only read.
 */
import {
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { sessionQuery, type OwnToken, type Session } from '../../api/queries';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DialogForm } from '../../components/DialogForm';
import { SecretOnceDialog } from '../../components/SecretOnceDialog';
import { formatAgo, formatDate, formatTime } from '../../components/format';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { badgeToneVars } from '../../components/Tone';
import { ownTokensQuery, useIssueToken, useRevokeToken } from './api';

const DAY_MS = 86_400_000;
/** The API refuses more than 365 days; an hour less keeps a fast clock on this computer from crossing it. */
const EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '180', label: '180 days' },
  { value: '365', label: '1 year' },
];

type Status = 'active' | 'expired' | 'revoked';

function statusOf(token: OwnToken, now = Date.now()): Status {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now) return 'expired';
  return 'active';
}

const STATUS_COLOR: Record<Status, string> = { active: 'teal', expired: 'gray', revoked: 'gray' };

export function OwnTokensSection({ projectId }: { projectId: string }) {
  const tokens = useQuery(ownTokensQuery());
  const session = useQuery(sessionQuery());
  const [issuing, setIssuing] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<OwnToken | null>(null);

  return (
    <Stack gap="sm" component="section" aria-label="Your tokens">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Your tokens
        </Title>
        <Button
          variant="default"
          leftSection={<IconPlus size={16} aria-hidden />}
          onClick={() => setIssuing(true)}
          disabled={!session.data}
        >
          New token
        </Button>
      </Group>
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

function TokensTable({
  tokens,
  projects,
  onRevoke,
}: {
  tokens: OwnToken[];
  projects: Session['projects'];
  onRevoke: (token: OwnToken) => void;
}) {
  const nameOf = new Map(projects.map((project) => [project.id, project.name]));
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table aria-label="Your tokens">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Projects and scopes</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th>Last used</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tokens.map((token) => {
            const status = statusOf(token);
            const label = token.name ?? 'Unnamed token';
            return (
              <Table.Tr key={token.id}>
                <Table.Td>
                  <Text size="sm">{label}</Text>
                  {token.current ? (
                    <Badge size="xs" variant="light" color="blue" vars={badgeToneVars('blue')}>
                      This session
                    </Badge>
                  ) : null}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{token.projectIds.map((id) => nameOf.get(id) ?? id).join(', ')}</Text>
                  <Text size="xs" c="dimmed">
                    {token.scopes.filter((scope) => !scope.startsWith('organizations/')).join(', ')}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" title={formatTime(token.createdAt)}>
                    {formatDate(token.createdAt)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" title={formatTime(token.expiresAt)}>
                    {token.expiresAt === null ? 'never' : formatDate(token.expiresAt)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" title={token.lastUsed ? formatTime(token.lastUsed) : undefined}>
                    {token.lastUsed ? formatAgo(token.lastUsed) : 'never'}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge
                    size="sm"
                    variant="light"
                    color={STATUS_COLOR[status]}
                    vars={badgeToneVars(STATUS_COLOR[status])}
                  >
                    {status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {status === 'active' ? (
                    <Button
                      size="compact-xs"
                      variant="default"
                      onClick={() => onRevoke(token)}
                      aria-label={`Revoke ${label}`}
                    >
                      Revoke
                    </Button>
                  ) : null}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function IssueTokenDialog({
  projectId,
  projects,
  onClose,
  onIssued,
}: {
  projectId: string;
  projects: Session['projects'];
  onClose: () => void;
  onIssued: (secret: string) => void;
}) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('90');
  // Least reach by default: the project whose settings these are.
  const [projectIds, setProjectIds] = useState<string[]>([projectId]);
  const issue = useIssueToken(onIssued);
  const submit = () => {
    const expiresAt = new Date(Date.now() + Number(days) * DAY_MS - (days === '365' ? 3_600_000 : 0));
    issue.mutate({ name, projectIds, expiresAt: expiresAt.toISOString() });
  };
  return (
    <DialogForm
      title="New token"
      onClose={onClose}
      onSubmit={submit}
      pending={issue.isPending}
      error={issue.error}
      submit="Issue token"
      disabled={name.trim() === '' || projectIds.length === 0}
    >
      <TextInput
        label="Name"
        description="Where it will be used: a CI job, a laptop"
        required
        data-autofocus
        value={name}
        maxLength={100}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      <Select
        label="Expires after"
        data={EXPIRIES}
        value={days}
        onChange={(value) => setDays(value ?? '90')}
        allowDeselect={false}
      />
      <Checkbox.Group label="Projects" value={projectIds} onChange={setProjectIds} required>
        <Stack gap={4} mt={4}>
          {projects.map((project) => (
            <Checkbox
              key={project.id}
              value={project.id}
              label={`${project.organizationName} / ${project.name} (${project.role ?? 'no role'})`}
            />
          ))}
        </Stack>
      </Checkbox.Group>
    </DialogForm>
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
