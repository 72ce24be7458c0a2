import { useState } from 'react';
import { describe, expect, test, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { renderInApp } from '../../testing/render';
import type { DraftStep } from './caseDraft';
import { StepsEditor } from './StepsEditor';

const step = (key: string, action: string): DraftStep => ({
  key,
  action,
  data: '',
  expectedResult: '',
  text: '',
  subSteps: [],
});

const STEPS = [step('a', 'Open the cart'), step('b', 'Pay by card'), step('c', 'See the receipt')];

/**
 * The editor as the case editor holds it (the steps in state, every change also reported to `changes`), and
 * the keyboard moves a person makes, each awaited until dnd-kit has announced it.
 */
async function editor({ readOnly = false } = {}) {
  const changes = vi.fn<(steps: DraftStep[]) => void>();
  function CaseSteps() {
    const [steps, setSteps] = useState(STEPS);
    return (
      <StepsEditor
        format="Classic"
        steps={steps}
        readOnly={readOnly}
        onChange={(next) => {
          changes(next);
          setSteps(next);
        }}
      />
    );
  }
  const { screen } = await renderInApp(<CaseSteps />);
  const announced = screen.getByRole('status');
  const actions = () =>
    [1, 2, 3].map((n) => (screen.getByLabelText(`Step ${n}: action`).element() as HTMLTextAreaElement).value);
  const lift = async (number: number) => {
    const handle = screen.getByRole('button', { name: `Move step ${number}` });
    handle.element().focus();
    await userEvent.keyboard('[Space]');
    await expect.element(handle).toHaveAttribute('aria-pressed', 'true');
  };
  const move = async (key: '[ArrowDown]' | '[ArrowUp]', from: number, over: number) => {
    await userEvent.keyboard(key);
    await expect.element(announced).toHaveTextContent(`Step ${from} is over position ${over}.`);
  };
  return { screen, changes, actions, announced, lift, move };
}

describe('StepsEditor keyboard reordering', () => {
  test('when the user focuses step 1’s handle, presses Space, ArrowDown, Space, then it is step 2', async () => {
    const { changes, actions, lift, move } = await editor();
    await lift(1);
    await move('[ArrowDown]', 1, 2);
    await userEvent.keyboard('[Space]');
    await expect.poll(actions).toEqual(['Pay by card', 'Open the cart', 'See the receipt']);
    expect(changes).toHaveBeenCalledTimes(1);
    expect(changes.mock.lastCall?.[0].map((s) => s.key)).toEqual(['b', 'a', 'c']);
  });

  test('when the user moves the last step up twice, then it is first', async () => {
    const { actions, lift, move } = await editor();
    await lift(3);
    await move('[ArrowUp]', 3, 2);
    await move('[ArrowUp]', 3, 1);
    await userEvent.keyboard('[Space]');
    await expect.poll(actions).toEqual(['See the receipt', 'Open the cart', 'Pay by card']);
  });

  test('when the user presses Escape during a move, then the order is unchanged', async () => {
    const { changes, actions, announced, lift, move } = await editor();
    await lift(1);
    await move('[ArrowDown]', 1, 2);
    await userEvent.keyboard('[Escape]');
    await expect.element(announced).toHaveTextContent('Moving step 1 was cancelled.');
    expect(changes).not.toHaveBeenCalled();
    expect(actions()).toEqual(['Open the cart', 'Pay by card', 'See the receipt']);
  });

  test('when a step is dropped, then screen readers hear where it went', async () => {
    const { announced, lift, move } = await editor();
    await lift(2);
    await move('[ArrowDown]', 2, 3);
    await userEvent.keyboard('[Space]');
    await expect.element(announced).toHaveTextContent('Step 2 dropped at position 3.');
  });

  test('when the case is read-only, then no step can be moved, removed or added', async () => {
    const { screen } = await editor({ readOnly: true });
    await expect.element(screen.getByLabelText('Step 1: action')).toBeVisible();
    await expect.element(screen.getByRole('button', { name: 'Move step 1' })).not.toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Remove step 1' })).not.toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Add step' })).not.toBeInTheDocument();
  });
});
