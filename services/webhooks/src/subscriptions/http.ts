import type { Request, RequestHandler, Response } from 'express';
import {
  CreateWebhookRequest,
  UpdateWebhookRequest,
  WebhookDeliveriesQuery,
  WebhookPath,
  webhookRoutes,
  WebhooksPath,
  WebhooksQuery,
} from '@verdict/contracts';
import {
  ForbiddenError,
  parseBody,
  parseParams,
  parseQuery,
  sendData,
  sendList,
  type ApiRoute,
} from '@verdict/platform';
import type { Subscriptions } from './subscriptions';

const WRITE_ROLES = new Set(['owner', 'admin']);

/**
 * The project of the path, which must be the one the gateway vouched for. The gateway already checks both
 * the project and the role; checking again here keeps a misrouted request from crossing projects.
 */
function projectOf(req: Request, res: Response, write: boolean): string {
  const { projectId } = parseParams(WebhooksPath.loose(), req);
  const identity = res.locals.identity;
  if (identity.projectId !== projectId) throw new ForbiddenError('The token is not scoped to this project');
  if (write && !WRITE_ROLES.has(identity.role)) {
    throw new ForbiddenError('Creating, updating and deleting webhooks needs the owner or admin role');
  }
  return projectId;
}

/** The routes of spec §4.9 on the subscriptions. */
export function webhookHttpRoutes(subscriptions: Subscriptions): ApiRoute[] {
  const handlers: Record<string, RequestHandler> = {
    'get /{projectId}/webhooks': async (req, res) => {
      const projectId = projectOf(req, res, false);
      const { page, limit } = parseQuery(WebhooksQuery, req);
      const { items, pagination } = await subscriptions.list(projectId, page, limit);
      sendList(res, items, pagination);
    },
    'post /{projectId}/webhooks': async (req, res) => {
      const projectId = projectOf(req, res, true);
      const body = parseBody(CreateWebhookRequest, req);
      // Spec §4: "Unless stated otherwise, success is HTTP 200", and §4.9 states nothing else for create.
      sendData(res, await subscriptions.create(projectId, body));
    },
    'get /{projectId}/webhooks/{webhookId}': async (req, res) => {
      const projectId = projectOf(req, res, false);
      const { webhookId } = parseParams(WebhookPath, req);
      sendData(res, await subscriptions.get(projectId, webhookId));
    },
    'patch /{projectId}/webhooks/{webhookId}': async (req, res) => {
      const projectId = projectOf(req, res, true);
      const { webhookId } = parseParams(WebhookPath, req);
      const body = parseBody(UpdateWebhookRequest, req);
      sendData(res, await subscriptions.update(projectId, webhookId, body));
    },
    'delete /{projectId}/webhooks/{webhookId}': async (req, res) => {
      const projectId = projectOf(req, res, true);
      const { webhookId } = parseParams(WebhookPath, req);
      sendData(res, await subscriptions.remove(projectId, webhookId));
    },
    'get /{projectId}/webhooks/{webhookId}/deliveries': async (req, res) => {
      const projectId = projectOf(req, res, false);
      const { webhookId } = parseParams(WebhookPath, req);
      const query = parseQuery(WebhookDeliveriesQuery, req);
      const { items, pagination } = await subscriptions.deliveries(projectId, webhookId, query);
      sendList(res, items, pagination);
    },
  };
  return webhookRoutes.map((spec) => {
    const handler = handlers[`${spec.method} ${spec.path}`];
    if (!handler) throw new Error(`No handler for ${spec.method} ${spec.path}`);
    return { ...spec, handlers: [handler] };
  });
}
