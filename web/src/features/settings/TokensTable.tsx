import { Badge, Button, Table, Text } from '@mantine/core';
import type { OwnToken, Session } from '../../api/queries';
import { formatAgo, formatDate, formatTime } from '../../components/format';
import { badgeToneVars } from '../../components/Tone';
import { projectScopes, STATUS_COLOR, statusOf } from './ownTokens';

/** One's tokens: name, projects and scopes, dates, status; an active one can be revoked. */
export function TokensTable({
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
          {tokens.map((token) => (
            <TokenRow
              key={token.id}
              token={token}
              projectNames={token.projectIds.map((id) => nameOf.get(id) ?? id).join(', ')}
              onRevoke={onRevoke}
            />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function TokenRow({
  token,
  projectNames,
  onRevoke,
}: {
  token: OwnToken;
  projectNames: string;
  onRevoke: (token: OwnToken) => void;
}) {
  const status = statusOf(token);
  const label = token.name ?? 'Unnamed token';
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm">{label}</Text>
        {token.current ? (
          <Badge size="xs" variant="light" color="blue" vars={badgeToneVars('blue')}>
            This session
          </Badge>
        ) : null}
      </Table.Td>
      <Table.Td>
        <Text size="sm">{projectNames}</Text>
        <Text size="xs" c="dimmed">
          {projectScopes(token.scopes)}
        </Text>
      </Table.Td>
      <TokenDates token={token} />
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
        {status === 'active' ? <RevokeButton label={label} onRevoke={() => onRevoke(token)} /> : null}
      </Table.Td>
    </Table.Tr>
  );
}

function RevokeButton({ label, onRevoke }: { label: string; onRevoke: () => void }) {
  return (
    <Button size="compact-xs" variant="default" onClick={onRevoke} aria-label={`Revoke ${label}`}>
      Revoke
    </Button>
  );
}

/** The created, expires and last used cells. */
function TokenDates({ token }: { token: OwnToken }) {
  return (
    <>
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
    </>
  );
}
