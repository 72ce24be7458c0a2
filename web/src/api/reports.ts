/** PDF reports (a run's, a period's): asked for, then saved as a download under the given name. */
import { useMutation } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type WriteBody } from './client';

export function useReportDownload(projectId: string, fileName: string) {
  return useMutation({
    mutationFn: async (body: WriteBody<'/{projectId}/reports', 'post'>) =>
      unwrap(
        await verdict.api.POST('/{projectId}/reports', {
          params: { path: { projectId } },
          body,
          parseAs: 'blob',
        }),
      ) as unknown as Blob,
    onSuccess: (blob) => {
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  });
}
