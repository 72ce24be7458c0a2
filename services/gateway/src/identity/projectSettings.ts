/**
 * GET and PATCH /{projectId}/settings: a project's settings (its default branch, the base of the verdict
 * of each failure of runs that name none). Any member reads them; the route declaration lets only an owner
 * or admin change them. A change is recorded on the organization's stream and answered once the read model
 * shows it; the next run started in the project (on any replica) takes it.
 */
import { Router } from 'express';
import { projectSettingsRoutes, DEFAULT_BASE_BRANCH } from '@verdict/contracts';
import { bindRoutes, parseJsonBodies, registerRoutes } from '@verdict/platform';
import type { IdentityCommands } from './commands';
import type { IdentityDirectory } from './directory';

export interface ProjectSettingsOptions {
  directory: Pick<IdentityDirectory, 'defaultBranchOf'>;
  commands: Pick<IdentityCommands, 'changeProjectSettings'>;
}

/**
 * The settings routes; mount them under each API prefix after the access chain.
 *
 * @example api.use(accessChain, createProjectSettingsRouter({ directory, commands }));
 */
export function createProjectSettingsRouter({ directory, commands }: ProjectSettingsOptions): Router {
  const router = Router();
  // The gateway streams API bodies to services unread; this route is its own, so it parses its small body.
  router.patch('/:projectId/settings', parseJsonBodies({ limit: '16kb' }));
  const routes = bindRoutes(
    projectSettingsRoutes,
    {
      'get /{projectId}/settings': async (_input, { projectId }) => ({
        projectId,
        defaultBranch: (await directory.defaultBranchOf?.(projectId)) ?? DEFAULT_BASE_BRANCH,
      }),
      'patch /{projectId}/settings': ({ body }, { projectId, organizationId, actor, correlationId }) =>
        commands.changeProjectSettings({ organizationId, projectId }, body, actor, { correlationId }),
    },
    // The gateway authorizes the token itself (authorize()): the identity it forwards is this one.
    { identityOf: (res) => res.locals.access },
  );
  registerRoutes(router, routes);
  return router;
}
