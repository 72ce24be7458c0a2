import type { Request, RequestHandler, Response } from 'express';
import { ManualProjectPath, manualTestingRoutes } from '@verdict/contracts';
import { ForbiddenError, parseParams, type ApiRoute, type BlobStore, type Clock } from '@verdict/platform';
import type { ReadStore } from '../projections/queries';
import type { WriteContext, Writes } from './writes';

/** What every route of the service is built from. */
export interface RouteDeps {
  writes: Writes;
  read: ReadStore;
  clock: Clock;
  blobs: BlobStore;
  /** Largest attachment accepted, in bytes. */
  attachmentMaxBytes: number;
}

/**
 * The path's project, which must be the one the gateway authorized (the internal identity's): a request
 * for another project never reads or writes it, whatever reached this service.
 */
export function projectOf(req: Request, res: Response): string {
  const { projectId } = parseParams(ManualProjectPath, req);
  if (projectId !== res.locals.identity.projectId)
    throw new ForbiddenError('Not authorized for this project');
  return projectId;
}

export const actorOf = (res: Response): string => res.locals.identity.userId;

export const contextOf = (req: Request, projectId: string): WriteContext => ({
  projectId,
  correlationId: req.get('x-request-id') ?? null,
});

/** Spec §5.4 again, in the service: a viewer writes nothing even if a request reached it. */
export const refuseViewerWrites: RequestHandler = (req, res, next) => {
  if (req.method !== 'GET' && req.method !== 'HEAD' && res.locals.identity.role === 'viewer') {
    throw new ForbiddenError('The viewer role cannot write');
  }
  next();
};

/** Attaches handlers to this service's route specs (contracts), refusing a spec without a handler. */
export function routesOf(prefixes: string[], handlers: Record<string, RequestHandler[]>): ApiRoute[] {
  return manualTestingRoutes
    .filter((spec) => prefixes.some((prefix) => spec.path.startsWith(prefix)))
    .map((spec) => {
      const route = handlers[`${spec.method} ${spec.path}`];
      if (!route) throw new Error(`No handler for ${spec.method} ${spec.path}`);
      return { ...spec, handlers: route };
    });
}
