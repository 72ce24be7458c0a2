/** The test's quarantine: "Quarantined until …" (a link to the quarantine page) or, for writers, a button to quarantine it. */
import { Badge, Button, Tooltip } from '@mantine/core';
import { IconShieldPause } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { testQuarantinesQuery } from '../../api/quarantines';
import { useCanWrite } from '../../api/role';
import { AnchorLink } from '../../components/AnchorLink';
import { formatDate } from '../../components/format';
import { QuarantineDialog, type QuarantineTarget } from '../../components/QuarantineDialog';
import { badgeToneVars } from '../../components/Tone';

export function QuarantineControl({ projectId, target }: { projectId: string; target: QuarantineTarget }) {
  const canWrite = useCanWrite(projectId);
  const [open, setOpen] = useState(false);
  const quarantines = useQuery(testQuarantinesQuery(projectId, target.testCaseId));
  const active = quarantines.data?.data.find(
    (quarantine) => quarantine.project === null || quarantine.project === target.project,
  );
  if (quarantines.isPending) return null;
  if (active)
    return (
      <Tooltip label={`${active.reason} (until ${formatDate(active.expiresAt)})`} multiline w={320}>
        <AnchorLink to="/projects/$projectId/quarantine" params={{ projectId }} underline="never">
          <Badge color="gray" variant="light" radius="sm" size="lg" vars={badgeToneVars('gray')}>
            Quarantined until {formatDate(active.expiresAt)}
          </Badge>
        </AnchorLink>
      </Tooltip>
    );
  if (!canWrite) return null;
  return (
    <>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconShieldPause size={14} aria-hidden />}
        onClick={() => setOpen(true)}
      >
        Quarantine
      </Button>
      {open ? (
        <QuarantineDialog projectId={projectId} target={target} onClose={() => setOpen(false)} />
      ) : null}
    </>
  );
}
