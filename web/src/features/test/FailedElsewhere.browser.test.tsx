import { describe, expect, test } from 'vitest';
import { pageAt, renderAtUrl } from '../../testing/render';
import { FailedElsewhere } from './FailedElsewhere';

const failure = (runId: string, counter: number, signature: { id: string; text: string } | null) => ({
  runId,
  counter,
  branch: 'main',
  environment: 'staging',
  project: 'chromium',
  outcome: 'failed' as const,
  attempts: 1,
  durationMs: 120,
  startedAt: '2026-11-28T10:00:00.000Z',
  errorMessage: 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at db.ts:3:1',
  errorSignature: signature,
});

describe('FailedElsewhere', () => {
  test('when a failure in another run has an error group, then its row links to the group; one without a group shows no link', async () => {
    const signature = { id: 'a1b2c3d4e5f6', text: 'Error: connect ECONNREFUSED <ip>:<port> at db.ts' };
    const { screen } = await renderAtUrl(
      pageAt(() => (
        <FailedElsewhere
          items={[failure('r7', 7, signature), failure('r6', 6, null)]}
          projectId="p1"
          caseId="t1"
        />
      )),
      '/',
    );
    const rows = screen.getByRole('row');
    const link = rows.nth(1).getByRole('link', { name: `Error group a1b2c3d4e5f6: ${signature.text}` });
    await expect.element(link).toHaveAttribute('href', '/projects/p1/errors/a1b2c3d4e5f6');
    expect(rows.nth(1).element().textContent).toContain('ECONNREFUSED');
    await expect.element(rows.nth(2).getByRole('link', { name: /^Error group/ })).not.toBeInTheDocument();
  });
});
