/** Downloads the run's PDF report (writers only). */
import { Button, Tooltip } from '@mantine/core';
import { IconFileTypePdf } from '@tabler/icons-react';
import { useReportDownload } from '../../api/reports';

export function PdfButton({
  projectId,
  runId,
  counter,
}: {
  projectId: string;
  runId: string;
  counter: number;
}) {
  const download = useReportDownload(projectId, `verdict-run-${counter}.pdf`);
  return (
    <Tooltip
      label={
        download.isError
          ? (download.error as Error).message
          : 'Counts, trend, failing tests first, slowest tests'
      }
    >
      <Button
        size="xs"
        variant="default"
        color={download.isError ? 'red' : undefined}
        leftSection={<IconFileTypePdf size={14} />}
        loading={download.isPending}
        onClick={() => download.mutate({ runId })}
      >
        PDF report
      </Button>
    </Tooltip>
  );
}
