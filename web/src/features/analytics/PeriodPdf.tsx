/** Downloads the period's PDF report (writers only). */
import { Button, Tooltip } from '@mantine/core';
import { IconFileTypePdf } from '@tabler/icons-react';
import { useReportDownload } from '../../api/reports';
import type { Range } from './filters';

export function PeriodPdf({ projectId, range }: { projectId: string; range: Range }) {
  const download = useReportDownload(projectId, `verdict-report-${range}.pdf`);
  return (
    <Tooltip label={download.isError ? (download.error as Error).message : `PDF report of the last ${range}`}>
      <Button
        size="xs"
        variant="default"
        color={download.isError ? 'red' : undefined}
        leftSection={<IconFileTypePdf size={14} />}
        loading={download.isPending}
        onClick={() => download.mutate({ dateRange: range })}
      >
        PDF report
      </Button>
    </Tooltip>
  );
}
