import { describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { VerdictApiError } from '@verdict/client';
import { renderInApp } from '../testing/render';
import { ConfirmDialog } from './ConfirmDialog';

function dialog(props: Partial<Parameters<typeof ConfirmDialog>[0]> = {}) {
  const onConfirm = vi.fn();
  const onClose = vi.fn();
  const ui = (
    <ConfirmDialog
      opened
      title="Revoke the token?"
      confirmLabel="Revoke"
      pending={false}
      error={null}
      onConfirm={onConfirm}
      onClose={onClose}
      {...props}
    >
      CI stops sending results with it.
    </ConfirmDialog>
  );
  return { ui, onConfirm, onClose };
}

describe('ConfirmDialog', () => {
  test('when the user confirms, then onConfirm is called once and the dialog does not close itself', async () => {
    const { ui, onConfirm, onClose } = dialog();
    const { screen } = await renderInApp(ui);
    await expect.element(screen.getByRole('dialog', { name: 'Revoke the token?' })).toBeVisible();
    await expect.element(screen.getByText('CI stops sending results with it.')).toBeVisible();
    await screen.getByRole('button', { name: 'Revoke' }).click();
    expect(onConfirm).toHaveBeenCalledTimes(1);
    expect(onClose).not.toHaveBeenCalled();
  });

  test('when it opens, then Cancel has the focus, so Enter cancels rather than confirms', async () => {
    const { ui, onConfirm, onClose } = dialog();
    const { screen } = await renderInApp(ui);
    await expect.element(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onConfirm).not.toHaveBeenCalled();
  });

  test('when Escape is pressed, then the dialog closes without confirming', async () => {
    const { ui, onConfirm, onClose } = dialog();
    const { screen } = await renderInApp(ui);
    await expect.element(screen.getByRole('dialog')).toBeVisible();
    await userEvent.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onConfirm).not.toHaveBeenCalled();
  });

  test('when the action failed, then its error is shown in the dialog as the API said it', async () => {
    const error = new VerdictApiError({
      status: 403,
      code: 'FORBIDDEN',
      message: 'Only an admin may revoke tokens',
    });
    const { ui } = dialog({ error });
    const { screen } = await renderInApp(ui);
    const alert = screen.getByRole('alert');
    await expect.element(alert).toMatchTextContent('Not allowed');
    await expect.element(alert).toMatchTextContent('Only an admin may revoke tokens');
  });

  test('while the action is pending, then its button shows it and cannot be pressed again', async () => {
    const { ui, onConfirm } = dialog({ pending: true });
    const { screen } = await renderInApp(ui);
    const confirm = screen.getByRole('button', { name: 'Revoke' });
    await expect.element(confirm).toBeDisabled();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  test('when closed, then nothing of it is on the page', async () => {
    const { ui } = dialog({ opened: false });
    await renderInApp(ui);
    await expect.element(page.getByRole('dialog')).not.toBeInTheDocument();
  });
});
