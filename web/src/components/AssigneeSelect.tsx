import { Select, type SelectProps } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { membersQuery, sessionQuery } from '../api/queries';

/** An assignee as the manual-testing API shows one. */
export interface Assignee {
  _id: string;
  firstName: string;
  lastName: string;
}

/**
 * Picks whom manual work is assigned to among the project's members (GET /{projectId}/members), searchable
 * by name; cleared means nobody. The signed-in person is marked "(me)". A current assignee who is no longer
 * a member is still shown, so the field never looks empty when it is not.
 */
export function AssigneeSelect({
  projectId,
  value,
  current,
  onChange,
  ...props
}: {
  projectId: string;
  value: string | null;
  /** The assignee as the resource shows it, for the case they are not listed among the members. */
  current?: Assignee | null;
  onChange: (userId: string | null) => void;
} & Omit<SelectProps, 'data' | 'value' | 'onChange'>) {
  const members = useQuery(membersQuery(projectId));
  const me = useQuery(sessionQuery()).data?.user?.id;
  const options = (members.data ?? []).map((member) => ({
    value: member.userId,
    label: `${member.firstName} ${member.lastName}${member.userId === me ? ' (me)' : ''}`,
  }));
  if (current && !options.some((option) => option.value === current._id)) {
    options.push({ value: current._id, label: `${current.firstName} ${current.lastName}` });
  }
  return (
    <Select
      label="Assignee"
      placeholder={members.isPending ? 'Loading the members…' : 'Nobody'}
      searchable
      clearable
      nothingFoundMessage="No member of that name"
      {...props}
      data={options}
      value={value}
      onChange={onChange}
    />
  );
}
