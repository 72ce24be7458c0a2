import { describe, expect, test, vi } from 'vitest';
import { page } from 'vitest/browser';
import { renderInApp } from '../testing/render';
import { SecretOnceDialog } from './SecretOnceDialog';

function secretDialog(secret: string | null) {
  const onClose = vi.fn();
  const ui = (
    <SecretOnceDialog secret={secret} title="Your new token" name="token" onClose={onClose}>
      Put it in CI as VERDICT_TOKEN.
    </SecretOnceDialog>
  );
  return { ui, onClose };
}

describe('SecretOnceDialog', () => {
  test('when a secret is answered, then it is shown once with how to use it, labelled by its name', async () => {
    const { ui } = secretDialog('vdt_0123456789');
    const { screen } = await renderInApp(ui);
    const dialog = screen.getByRole('dialog', { name: 'Your new token' });
    await expect
      .element(dialog)
      .toMatchTextContent('Copy it now: it is shown this once. Put it in CI as VERDICT_TOKEN.');
    await expect.element(dialog.getByLabelText('Token')).toHaveTextContent('vdt_0123456789');
  });

  test('when the user copies it, then the secret is written to the clipboard', async () => {
    // Watched rather than read back: CopyButton's own test reads the clipboard, which files share.
    const written = vi.spyOn(navigator.clipboard, 'writeText');
    const { ui } = secretDialog('vdt_0123456789');
    const { screen } = await renderInApp(ui);
    await screen.getByRole('button', { name: 'Copy the token' }).click();
    await expect.element(screen.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(written).toHaveBeenCalledWith('vdt_0123456789');
  });

  test('when the user says they have copied it, then the dialog is closed', async () => {
    const { ui, onClose } = secretDialog('vdt_0123456789');
    const { screen } = await renderInApp(ui);
    await screen.getByRole('button', { name: 'I have copied it' }).click();
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  test('when there is no secret, then no dialog and no secret are on the page', async () => {
    const { ui } = secretDialog(null);
    await renderInApp(ui);
    await expect.element(page.getByRole('dialog')).not.toBeInTheDocument();
  });
});
