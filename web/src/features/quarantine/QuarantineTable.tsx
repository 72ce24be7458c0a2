/** The quarantines as a table: test, platform, owner, expiry, reason, errors forgiven, and Extend and Lift. */
import { Badge, Button, Group, Table, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Quarantine } from '../../api/quarantines';
import { membersQuery } from '../../api/queries';
import { AnchorLink } from '../../components/AnchorLink';
import { formatAgo, formatDate, formatTime } from '../../components/format';
import { badgeToneVars } from '../../components/Tone';

export type QuarantineAction = { kind: 'extend' | 'lift'; quarantine: Quarantine };

function Expiry({ quarantine }: { quarantine: Quarantine }) {
  if (quarantine.status !== 'active' && quarantine.endedAt)
    return (
      <Text size="sm" title={formatTime(quarantine.endedAt)}>
        {quarantine.status === 'lifted' ? 'Lifted' : 'Expired'} {formatDate(quarantine.endedAt)}
      </Text>
    );
  return (
    <>
      <Text size="sm">{formatDate(quarantine.expiresAt)}</Text>
      <Text size="xs" c="dimmed" title={formatTime(quarantine.expiresAt)}>
        {formatAgo(quarantine.expiresAt)}
      </Text>
    </>
  );
}

function Signatures({ quarantine }: { quarantine: Quarantine }) {
  const { signatures } = quarantine.evidence;
  const count = signatures.length;
  return (
    <Tooltip
      multiline
      w={360}
      label={signatures.map((signature) => `${signature.text} (${signature.occurrences}×)`).join('\n')}
      disabled={count === 0}
      style={{ whiteSpace: 'pre-line' }}
    >
      <Text
        size="sm"
        tabIndex={count > 0 ? 0 : undefined}
        aria-label={`${count} ${count === 1 ? 'error' : 'errors'} forgiven`}
      >
        {count}
      </Text>
    </Tooltip>
  );
}

function QuarantineRow({
  quarantine,
  projectId,
  owner,
  canWrite,
  onAction,
}: {
  quarantine: Quarantine;
  projectId: string;
  owner: string;
  canWrite: boolean;
  onAction: (action: QuarantineAction) => void;
}) {
  const title = quarantine.titlePath.join(' › ');
  return (
    <Table.Tr>
      <Table.Td maw={380}>
        <AnchorLink
          to="/projects/$projectId/tests/$caseId"
          params={{ projectId, caseId: quarantine.testCaseId }}
          search={quarantine.project ? { project: quarantine.project } : {}}
          size="sm"
          lineClamp={1}
        >
          {title}
        </AnchorLink>
        <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
          {quarantine.file}
        </Text>
      </Table.Td>
      <Table.Td>{quarantine.project ?? 'All'}</Table.Td>
      <Table.Td>
        <Text size="sm">{owner}</Text>
        {quarantine.automatic ? (
          <Badge size="xs" variant="light" color="gray" radius="sm" vars={badgeToneVars('gray')}>
            automatic
          </Badge>
        ) : null}
      </Table.Td>
      <Table.Td>
        <Expiry quarantine={quarantine} />
      </Table.Td>
      <Table.Td maw={300}>
        <Text size="sm" lineClamp={2} title={quarantine.reason}>
          {quarantine.reason}
        </Text>
        {quarantine.endReason ? (
          <Text size="xs" c="dimmed" lineClamp={1}>
            Ended: {quarantine.endReason}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td ta="right">
        <Signatures quarantine={quarantine} />
      </Table.Td>
      {canWrite ? (
        <Table.Td>
          {quarantine.status === 'active' ? (
            <Group gap={6} wrap="nowrap">
              <Button
                size="compact-sm"
                variant="default"
                aria-label={`Extend ${title}`}
                onClick={() => onAction({ kind: 'extend', quarantine })}
              >
                Extend
              </Button>
              <Button
                size="compact-sm"
                variant="default"
                aria-label={`Lift ${title}`}
                onClick={() => onAction({ kind: 'lift', quarantine })}
              >
                Lift
              </Button>
            </Group>
          ) : null}
        </Table.Td>
      ) : null}
    </Table.Tr>
  );
}

export function QuarantineTable({
  quarantines,
  projectId,
  canWrite,
  onAction,
}: {
  quarantines: Quarantine[];
  projectId: string;
  canWrite: boolean;
  onAction: (action: QuarantineAction) => void;
}) {
  const members = useQuery(membersQuery(projectId));
  const names = new Map(
    (members.data ?? []).map((member) => [member.userId, `${member.firstName} ${member.lastName}`]),
  );
  return (
    <Table.ScrollContainer minWidth={1000}>
      <Table striped highlightOnHover aria-label="Quarantined tests">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Test</Table.Th>
            <Table.Th>Platform</Table.Th>
            <Table.Th>Owner</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th>Reason</Table.Th>
            <Table.Th ta="right">Errors</Table.Th>
            {canWrite ? <Table.Th>Actions</Table.Th> : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {quarantines.map((quarantine) => (
            <QuarantineRow
              key={quarantine.id}
              quarantine={quarantine}
              projectId={projectId}
              owner={names.get(quarantine.ownerId) ?? quarantine.ownerId}
              canWrite={canWrite}
              onAction={onAction}
            />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
