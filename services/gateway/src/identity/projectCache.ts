import type { IdentityDirectory, ProjectRecord } from './directory';

/**
 * Project records never change once created (no rename, move or delete exists), so the access chain may
 * keep the ones it has seen: token-info then costs two database reads instead of four. Only projects that
 * exist are kept (one created later must still be found), and the map is bounded.
 *
 * @example const directory = withProjectCache(createSqlIdentityDirectory(db), { max: 10_000 });
 */
export function withProjectCache<D extends IdentityDirectory>(
  directory: D,
  options: { max?: number } = {},
): D {
  const max = options.max ?? 10_000;
  const projects = new Map<string, ProjectRecord>();
  const findProject = async (projectId: string): Promise<ProjectRecord | null> => {
    const cached = projects.get(projectId);
    if (cached) return cached;
    const project = await directory.findProject(projectId);
    if (project) {
      // The oldest entry goes first: Map keeps insertion order.
      if (projects.size >= max) projects.delete(projects.keys().next().value as string);
      projects.set(projectId, project);
    }
    return project;
  };
  return Object.assign(Object.create(directory) as D, { findProject });
}
