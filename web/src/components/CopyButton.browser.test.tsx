import { describe, expect, test, vi } from 'vitest';
import { renderInApp } from '../testing/render';
import { CopyFetched, CopyText } from './CopyButton';

describe('CopyText', () => {
  test('when the user clicks it, then the text is on the clipboard and the button says Copied for a while', async () => {
    const { screen } = await renderInApp(<CopyText value="vdt_secret_123" label="Copy the token" />);
    await screen.getByRole('button', { name: 'Copy the token' }).click();
    await expect.element(screen.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await navigator.clipboard.readText()).toBe('vdt_secret_123');
    await expect.element(screen.getByRole('button', { name: 'Copy the token' })).toBeVisible();
  });
});

describe('CopyFetched', () => {
  test('when the user clicks it, then the text is fetched then, once, and copied', async () => {
    const load = vi.fn(async () => '# Debug bundle\n\n2 failed');
    const { screen } = await renderInApp(<CopyFetched load={load} label="Copy for AI" />);
    expect(load).not.toHaveBeenCalled();
    await screen.getByRole('button', { name: 'Copy for AI' }).click();
    await expect.element(screen.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(load).toHaveBeenCalledTimes(1);
    expect(await navigator.clipboard.readText()).toBe('# Debug bundle\n\n2 failed');
  });

  test('when the text cannot be fetched, then the button says the copy failed', async () => {
    const load = () => Promise.reject(new Error('503'));
    const { screen } = await renderInApp(<CopyFetched load={load} label="Copy for AI" />);
    await screen.getByRole('button', { name: 'Copy for AI' }).click();
    await expect.element(screen.getByRole('button', { name: 'Copy failed' })).toBeVisible();
  });
});
