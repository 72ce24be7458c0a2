import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { screenshotWithoutViolations } from './support/screenshots';
import { takeSecretShownOnce } from './support/secrets';
import { expect, projectPath, test } from './support/test';
import { clientFor } from './support/verdict';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on the loopback address: it answers 200 and keeps what it was sent. */
async function receiver() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/verdict`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Spec §6: X-Service-Signature is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret>. */
function signedWith(secret: string, delivery: Received): boolean {
  const header = String(delivery.headers['x-service-signature'] ?? '');
  const t = /t=(\d+)/.exec(header)?.[1];
  const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1];
  if (!t || !v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

test.describe('project settings: webhooks', () => {
  test('when an owner creates a webhook in the page, then its secret shows once, a signed delivery reaches the receiver and shows in the delivery log, and it is edited, paused and deleted', async ({
    page,
    context,
    verdict,
    signIn,
  }, testInfo) => {
    const owner = await signIn('owner');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const hooks = await receiver();
    try {
      await page.goto(projectPath(verdict, '/settings'));
      await page.getByRole('button', { name: 'New webhook' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('URL').fill(hooks.url);
      await dialog.getByRole('checkbox', { name: 'run.started' }).check();
      await dialog.getByLabel('Description').fill('CI notifier');
      await dialog.getByRole('button', { name: 'Create webhook' }).click();

      const secret = await takeSecretShownOnce(page, {
        label: 'Signing secret',
        copy: 'Copy the signing secret',
        pattern: /^whsec_\S+$/,
      });
      const row = page
        .getByRole('table', { name: 'Webhook subscriptions' })
        .getByRole('row')
        .filter({ hasText: hooks.url });
      await expect(row).toContainText('CI notifier');
      // Shown once: nowhere on the page after, nor after a reload.
      await page.reload();
      await expect(row).toBeVisible();
      await expect(page.getByText(secret)).toHaveCount(0);

      // A run starts: the subscription's signed delivery reaches the receiver.
      const client = clientFor(verdict, owner.token);
      const { run } = await client.startRun({ title: 'Webhook run', branch: 'hooks' });
      await expect.poll(() => hooks.received.length).toBeGreaterThan(0);
      const delivery = hooks.received[0]!;
      expect(signedWith(secret, delivery)).toBe(true);
      expect(signedWith(`${secret}x`, delivery)).toBe(false);
      expect(JSON.parse(delivery.body)).toMatchObject({
        projectId: verdict.projectId,
        data: { run: { id: run.id } },
      });
      await client.finishRun(run.id, { status: 'passed' });

      await row.getByRole('button', { name: 'Deliveries' }).click();
      const log = page.getByRole('table', { name: 'Deliveries' });
      await expect(log.getByRole('row').filter({ hasText: 'run.started' }).first()).toContainText(
        'succeeded',
      );
      await expect(log.getByRole('row').filter({ hasText: 'run.started' }).first()).toContainText('200');
      await expect(log.getByRole('row').filter({ hasText: 'run.started' }).first()).toContainText(/\d+ ms/);

      // Send test event: a signed webhook.test reaches the receiver, the row says so, the log lists it.
      const before = hooks.received.length;
      await row.getByRole('button', { name: `Send test event: ${hooks.url}` }).click();
      await expect
        .poll(() => hooks.received.some((d) => d.headers['x-service-event'] === 'webhook.test'))
        .toBe(true);
      const tested = hooks.received
        .slice(before)
        .find((d) => d.headers['x-service-event'] === 'webhook.test')!;
      expect(signedWith(secret, tested)).toBe(true);
      expect(JSON.parse(tested.body)).toMatchObject({
        id: tested.headers['x-service-delivery'],
        event: 'webhook.test',
        projectId: verdict.projectId,
        data: { test: true, projectId: verdict.projectId },
      });
      await expect(row.getByRole('status')).toContainText(/Test event delivered: 200 in \d+ ms/);
      const testRow = log.getByRole('row').filter({ hasText: 'webhook.test' });
      await expect(testRow).toHaveCount(1);
      await expect(testRow).toContainText('succeeded');
      await expect(testRow).toContainText('200');
      await screenshotWithoutViolations(page, testInfo, 'settings');

      await row.getByRole('button', { name: 'Edit' }).click();
      await dialog.getByLabel('Description').fill('CI notifier (failures)');
      await dialog.getByRole('combobox', { name: 'Outcome (run.finished only)' }).click();
      await page.getByRole('option', { name: 'Failed runs' }).click();
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(row).toContainText('CI notifier (failures)');
      await expect(row).toContainText('failed');

      await row.getByRole('switch').click({ force: true });
      await expect(row).toContainText('paused');
      await expect(row.getByRole('switch')).not.toBeChecked();
      await row.getByRole('switch').click({ force: true });
      await expect(row.getByRole('switch')).toBeChecked();

      await row.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete this webhook?' });
      await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await confirm.getByRole('button', { name: 'Delete webhook' }).click();
      await expect(row).toHaveCount(0);
    } finally {
      await hooks.close();
    }
  });

  test('when a member opens the settings, then webhooks are read-only, and a webhook write from the session is refused with 403', async ({
    page,
    verdict,
    signIn,
  }) => {
    await signIn('member');
    await page.goto(projectPath(verdict, '/settings'));
    await expect(page.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'New webhook' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Send test event/ })).toHaveCount(0);
    const session = (await (await page.request.get('/api/public/v1/session')).json()) as {
      data: { csrfToken: string };
    };
    const write = await page.request.post(`/api/public/v1/${verdict.projectId}/webhooks`, {
      headers: { 'X-CSRF-Token': session.data.csrfToken },
      data: { url: 'https://example.com/hook', events: ['run.finished'] },
    });
    expect(write.status()).toBe(403);
    const test = await page.request.post(`/api/public/v1/${verdict.projectId}/webhooks/wh_any/test`, {
      headers: { 'X-CSRF-Token': session.data.csrfToken },
    });
    expect(test.status()).toBe(403);
  });
});
