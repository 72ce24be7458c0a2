import { unwrap } from '@verdict/client';
import { attachWithChooser, dropTextFile, expectLoaded, viewFullSize } from './support/attachments';
import { screenshotWithoutViolations } from './support/screenshots';
import { expect, openSession, projectPath, test } from './support/test';
import { clientFor, newPerson } from './support/verdict';

test.describe('evidence on a run case', () => {
  test('when a tester attaches a screenshot and a log to a failed case, then they show beside the verdict, a second tester sees them appear, a removal is confirmed, and a viewer sees the files without write controls', async ({
    page,
    browser,
    verdict,
    signIn,
  }, testInfo) => {
    const tester = await signIn('member');
    const client = clientFor(verdict, tester.token);
    const run = unwrap(
      await client.api.POST('/{projectId}/manual-runs', {
        params: { path: { projectId: verdict.projectId } },
        body: { name: `Evidence ${Date.now()}`, caseIds: verdict.manual.caseIds },
      }),
    ).data;
    const failed = run.testCases[1];
    if (!failed) throw new Error('the run has no second case');
    unwrap(
      await client.api.PATCH('/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}', {
        params: { path: { projectId: verdict.projectId, runId: run._id, runCaseId: failed._id } },
        body: { result: 'failed' },
      }),
    );
    const casePath = projectPath(verdict, `/manual-runs/${run._id}?case=${failed._id}`);

    // The second tester watches the same case in another browser context.
    const colleague = await newPerson(verdict, 'member');
    const other = await browser.newContext({ baseURL: verdict.url });
    const otherPage = await other.newPage();
    await openSession(otherPage, colleague);
    await otherPage.goto(casePath);
    const theirEvidence = otherPage.getByRole('region', { name: 'Evidence' });
    await expect(theirEvidence).toContainText('No evidence yet.');

    await page.goto(casePath);
    const evidence = page.getByRole('region', { name: 'Evidence' });
    await expect(evidence).toContainText('No evidence yet.');
    // A real PNG: what the tester sees of the failing case.
    const screenshot = await page.screenshot({ clip: { x: 0, y: 0, width: 480, height: 300 } });

    await attachWithChooser(page, evidence.getByRole('button', { name: 'Attach evidence' }), {
      name: 'refund-greyed-out.png',
      mimeType: 'image/png',
      buffer: screenshot,
    });
    const files = evidence.getByRole('list', { name: 'Evidence files' });
    await expectLoaded(files.getByRole('img', { name: 'refund-greyed-out.png' }));
    await expect(files.getByRole('link', { name: 'refund-greyed-out.png' })).toBeVisible();

    // Dropped on the section, a log comes as a download link with its size.
    await dropTextFile(page, evidence, 'server.log', 'POST /refunds 500');
    await expect(files.getByRole('listitem')).toHaveCount(2);
    await expect(files.getByRole('listitem').nth(1)).toContainText('server.log');
    await expect(files.getByRole('listitem').nth(1)).toContainText('17 B');

    // The thumbnail opens the image full size.
    await viewFullSize(page, files, 'refund-greyed-out.png');

    // Without a reload, the other tester sees both.
    await expectLoaded(theirEvidence.getByRole('img', { name: 'refund-greyed-out.png' }));
    await expect(theirEvidence.getByRole('link', { name: 'server.log' })).toBeVisible();

    await screenshotWithoutViolations(page, testInfo, 'manual-run-evidence');

    await files.getByRole('button', { name: 'Remove refund-greyed-out.png' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove evidence' });
    await expect(confirm).toContainText('refund-greyed-out.png');
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await expect(confirm).toHaveCount(0);
    await expect(files.getByRole('listitem')).toHaveCount(1);
    const history = page.getByRole('heading', { name: 'Verdict history' }).locator('..');
    await expect(history).toContainText('evidence removed');
    await expect(theirEvidence.getByRole('img', { name: 'refund-greyed-out.png' })).toHaveCount(0);
    await other.close();

    const saved = unwrap(
      await client.api.GET('/{projectId}/manual-runs/{runId}', {
        params: { path: { projectId: verdict.projectId, runId: run._id } },
      }),
    ).data.testCases[1];
    expect(saved?.attachments.map((a) => [a.originalFileName, a.fileSize])).toEqual([['server.log', 17]]);

    // A viewer sees the evidence, and nothing to change it with.
    const viewer = await newPerson(verdict, 'viewer');
    await page.context().clearCookies();
    await openSession(page, viewer);
    await page.reload();
    await expect(evidence.getByRole('link', { name: 'server.log' })).toBeVisible();
    await expect(evidence.getByRole('button', { name: 'Attach evidence' })).toHaveCount(0);
    await expect(evidence.getByRole('button', { name: /^Remove/ })).toHaveCount(0);
    await expect(evidence).not.toContainText('drop files');
  });
});
