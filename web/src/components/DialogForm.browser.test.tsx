import { TextInput } from '@mantine/core';
import { VerdictApiError } from '@verdict/client';
import { describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { renderInApp } from '../testing/render';
import { DialogForm } from './DialogForm';

function form(props: Partial<Parameters<typeof DialogForm>[0]> = {}) {
  const onSubmit = vi.fn();
  const onClose = vi.fn();
  const ui = (
    <DialogForm
      title="New suite"
      submit="Create"
      pending={false}
      error={null}
      disabled={false}
      onSubmit={onSubmit}
      onClose={onClose}
      {...props}
    >
      <TextInput label="Name" data-autofocus />
    </DialogForm>
  );
  return { ui, onSubmit, onClose };
}

describe('DialogForm', () => {
  test('when the user presses Enter in a field, then the form is submitted once', async () => {
    const { ui, onSubmit, onClose } = form();
    const { screen } = await renderInApp(ui);
    await screen.getByRole('textbox', { name: 'Name' }).fill('Checkout');
    await userEvent.keyboard('{Enter}');
    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect(onClose).not.toHaveBeenCalled();
  });

  test('when the user clicks the submit button, then the form is submitted once', async () => {
    const { ui, onSubmit } = form();
    const { screen } = await renderInApp(ui);
    await screen.getByRole('button', { name: 'Create' }).click();
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  test('while the form cannot be sent (disabled), then neither its button nor Enter submits it', async () => {
    const { ui, onSubmit } = form({ disabled: true });
    const { screen } = await renderInApp(ui);
    await expect.element(screen.getByRole('button', { name: 'Create' })).toBeDisabled();
    await screen.getByRole('textbox', { name: 'Name' }).click();
    await userEvent.keyboard('{Enter}');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  test('when the user cancels or presses Escape, then the dialog closes without submitting', async () => {
    const { ui, onSubmit, onClose } = form();
    const { screen } = await renderInApp(ui);
    await screen.getByRole('button', { name: 'Cancel' }).click();
    expect(onClose).toHaveBeenCalledTimes(1);
    await userEvent.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(2);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  test('when the API refused the last submission, then its reason stays in the dialog', async () => {
    const error = new VerdictApiError({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'name: a suite of that name exists',
    });
    const { ui } = form({ error });
    const { screen } = await renderInApp(ui);
    const alert = screen.getByRole('dialog', { name: 'New suite' }).getByRole('alert');
    await expect.element(alert).toMatchTextContent('The request was refused');
    await expect.element(alert).toMatchTextContent('name: a suite of that name exists');
  });

  test('while the submission is pending, then the submit button cannot be pressed again', async () => {
    const { ui, onSubmit } = form({ pending: true });
    const { screen } = await renderInApp(ui);
    await expect.element(screen.getByRole('button', { name: 'Create' })).toBeDisabled();
    expect(onSubmit).not.toHaveBeenCalled();
  });
});
