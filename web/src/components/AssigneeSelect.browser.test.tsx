import { describe, expect, test, vi } from 'vitest';
import { membersQuery, sessionQuery } from '../api/queries';
import { renderInApp, testQueryClient } from '../testing/render';
import { AssigneeSelect } from './AssigneeSelect';

const MEMBERS = [
  { userId: 'u-ada', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', role: 'member' },
  { userId: 'u-alan', firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com', role: 'admin' },
];
const SESSION = { user: { id: 'u-alan' }, projects: [{ id: 'p1', role: 'admin' }] };

/** The project's members and the session in the cache, as the app has them once asked. */
const cache = () =>
  testQueryClient([
    [membersQuery('p1').queryKey, MEMBERS],
    [sessionQuery().queryKey, SESSION],
  ]);

describe('AssigneeSelect', () => {
  test('when the user opens it, then the members are offered by name, the signed-in one marked (me)', async () => {
    const { screen } = await renderInApp(<AssigneeSelect projectId="p1" value={null} onChange={vi.fn()} />, {
      queryClient: cache(),
    });
    const field = screen.getByRole('combobox', { name: 'Assignee' });
    await expect.element(field).toHaveAttribute('placeholder', 'Nobody');
    await field.click();
    await expect.element(screen.getByRole('option', { name: 'Ada Lovelace' })).toBeVisible();
    await expect.element(screen.getByRole('option', { name: 'Alan Turing (me)' })).toBeVisible();
  });

  test('when the user types part of a name and picks the member, then onChange gets their user id', async () => {
    const onChange = vi.fn();
    const { screen } = await renderInApp(<AssigneeSelect projectId="p1" value={null} onChange={onChange} />, {
      queryClient: cache(),
    });
    await screen.getByRole('combobox', { name: 'Assignee' }).fill('lov');
    await expect.element(screen.getByRole('option', { name: 'Alan Turing (me)' })).not.toBeInTheDocument();
    await screen.getByRole('option', { name: 'Ada Lovelace' }).click();
    expect(onChange).toHaveBeenCalledWith('u-ada', expect.anything());
  });

  test('when a name matches no member, then it says so', async () => {
    const { screen } = await renderInApp(<AssigneeSelect projectId="p1" value={null} onChange={vi.fn()} />, {
      queryClient: cache(),
    });
    await screen.getByRole('combobox', { name: 'Assignee' }).fill('zz');
    await expect.element(screen.getByText('No member of that name')).toBeVisible();
  });

  test('when the assignee is no longer a member, then the field still shows their name', async () => {
    const { screen } = await renderInApp(
      <AssigneeSelect
        projectId="p1"
        value="u-grace"
        current={{ _id: 'u-grace', firstName: 'Grace', lastName: 'Hopper' }}
        onChange={vi.fn()}
      />,
      { queryClient: cache() },
    );
    await expect.element(screen.getByRole('combobox', { name: 'Assignee' })).toHaveValue('Grace Hopper');
  });

  test('when the user clears the field, then onChange gets null (nobody)', async () => {
    const onChange = vi.fn();
    const { screen } = await renderInApp(
      <AssigneeSelect projectId="p1" value="u-ada" onChange={onChange} />,
      {
        queryClient: cache(),
      },
    );
    await expect.element(screen.getByRole('combobox', { name: 'Assignee' })).toHaveValue('Ada Lovelace');
    await screen.getByRole('combobox', { name: 'Assignee' }).click();
    await screen.getByRole('option', { name: 'Ada Lovelace' }).click();
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange.mock.lastCall?.[0]).toBeNull();
  });
});
