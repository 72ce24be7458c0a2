import type { IdentityDirectory, ProjectRecord } from './directory';
import { withProjectCache } from './projectCache';

function countingDirectory(projects: ProjectRecord[]) {
  const calls: string[] = [];
  const directory: IdentityDirectory = {
    findToken: async () => null,
    roleOf: async () => null,
    findProject: async (id) => {
      calls.push(id);
      return projects.find((p) => p.id === id) ?? null;
    },
  };
  return { directory, calls, projects };
}

describe('the project cache of the access chain', () => {
  it('when a project is asked for twice, then the directory is read once', async () => {
    const { directory, calls } = countingDirectory([{ id: 'p1', name: 'Checkout', organizationId: 'o1' }]);
    const cached = withProjectCache(directory);
    expect(await cached.findProject('p1')).toEqual({ id: 'p1', name: 'Checkout', organizationId: 'o1' });
    expect(await cached.findProject('p1')).toEqual({ id: 'p1', name: 'Checkout', organizationId: 'o1' });
    expect(calls).toEqual(['p1']);
  });

  it('when a project did not exist yet, then it is found once it is created', async () => {
    const { directory, calls, projects } = countingDirectory([]);
    const cached = withProjectCache(directory);
    expect(await cached.findProject('p2')).toBeNull();
    projects.push({ id: 'p2', name: 'Search', organizationId: 'o1' });
    expect(await cached.findProject('p2')).toEqual({ id: 'p2', name: 'Search', organizationId: 'o1' });
    expect(calls).toEqual(['p2', 'p2']);
  });

  it('when more projects than the bound are seen, then the oldest is read again', async () => {
    const all = ['a', 'b', 'c'].map((id) => ({ id, name: id, organizationId: 'o' }));
    const { directory, calls } = countingDirectory(all);
    const cached = withProjectCache(directory, { max: 2 });
    for (const id of ['a', 'b', 'c', 'a']) await cached.findProject(id);
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });

  it('when tokens and roles are asked for, then they always come from the directory', async () => {
    const { directory } = countingDirectory([]);
    let roleReads = 0;
    directory.roleOf = async () => {
      roleReads += 1;
      return 'member';
    };
    const cached = withProjectCache(directory);
    await cached.roleOf('u', 'o');
    await cached.roleOf('u', 'o');
    expect(roleReads).toBe(2);
  });
});
