/** The settings page's reads and writes: webhooks, their deliveries, one's own tokens, the gate rules. */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type Read, type WriteBody } from '../../api/client';
import {
  everyPage,
  LIVE_INTERVAL_MS,
  path,
  sessionQuery,
  type OwnToken,
  type Webhook,
  type WebhookDelivery,
} from '../../api/queries';

export const webhooksQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['webhooks', projectId],
    queryFn: ({ signal }): Promise<Webhook[]> =>
      everyPage(async (page) =>
        unwrap(
          await verdict.api.GET('/{projectId}/webhooks', {
            params: { ...path(projectId), query: { page, limit: 100 } },
            signal,
          }),
        ),
      ),
    staleTime: 15_000,
  });

/** The latest delivery attempts of a subscription; asked again every 5 s while shown (they are queued). */
export const webhookDeliveriesQuery = (projectId: string, webhookId: string) =>
  queryOptions({
    queryKey: ['webhook-deliveries', projectId, webhookId],
    queryFn: async ({ signal }): Promise<WebhookDelivery[]> =>
      unwrap(
        await verdict.api.GET('/{projectId}/webhooks/{webhookId}/deliveries', {
          params: { path: { projectId, webhookId }, query: { page: 1, limit: 50 } },
          signal,
        }),
      ).data,
    staleTime: LIVE_INTERVAL_MS,
    refetchInterval: LIVE_INTERVAL_MS,
  });

/** The signed-in person's own tokens, newest first (revoked ones too). */
export const ownTokensQuery = () =>
  queryOptions({
    queryKey: ['own-tokens'],
    queryFn: ({ signal }): Promise<OwnToken[]> =>
      everyPage(async (page) =>
        unwrap(await verdict.api.GET('/session/tokens', { params: { query: { page, limit: 100 } }, signal })),
      ),
    staleTime: 15_000,
  });

type WebhookBody = WriteBody<'/{projectId}/webhooks', 'post'>;

/** Turns a subscription on or off. */
export function useToggleWebhook(projectId: string, webhookId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (active: boolean) =>
      unwrap(
        await verdict.api.PATCH('/{projectId}/webhooks/{webhookId}', {
          params: { path: { projectId, webhookId } },
          body: { active },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksQuery(projectId).queryKey }),
  });
}

export function useDeleteWebhook(projectId: string, webhookId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      unwrap(
        await verdict.api.DELETE('/{projectId}/webhooks/{webhookId}', {
          params: { path: { projectId, webhookId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksQuery(projectId).queryKey }),
  });
}

/** Queues a `webhook.test` event; `onQueued` gets its delivery id before the log is asked again. */
export function useSendWebhookTest(
  projectId: string,
  webhookId: string,
  onQueued: (deliveryId: string) => void,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      unwrap(
        await verdict.api.POST('/{projectId}/webhooks/{webhookId}/test', {
          params: { path: { projectId, webhookId } },
        }),
      ),
    onSuccess: async (queued) => {
      onQueued(queued.data.deliveryId);
      await queryClient.invalidateQueries({
        queryKey: webhookDeliveriesQuery(projectId, webhookId).queryKey,
      });
    },
  });
}

/**
 * Creates a subscription (answering its signing secret, shown once) or edits one (answering null);
 * `onSaved` runs once the list is asked again.
 */
export function useSaveWebhook(
  projectId: string,
  webhookId: string | null,
  onSaved: (secret: string | null) => void,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WebhookBody): Promise<string | null> => {
      if (webhookId) {
        unwrap(
          await verdict.api.PATCH('/{projectId}/webhooks/{webhookId}', {
            params: { path: { projectId, webhookId } },
            body,
          }),
        );
        return null;
      }
      return unwrap(await verdict.api.POST('/{projectId}/webhooks', { params: path(projectId), body })).data
        .secret;
    },
    onSuccess: async (secret) => {
      await queryClient.invalidateQueries({ queryKey: webhooksQuery(projectId).queryKey });
      onSaved(secret);
    },
  });
}

/** Issues a token for the signed-in person; `onIssued` gets its secret (shown once). */
export function useIssueToken(onIssued: (secret: string) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WriteBody<'/session/tokens', 'post'>) =>
      unwrap(await verdict.api.POST('/session/tokens', { body })).data.token,
    onSuccess: async (secret) => {
      await queryClient.invalidateQueries({ queryKey: ownTokensQuery().queryKey });
      onIssued(secret);
    },
  });
}

/** Revokes one of one's tokens; `onRevoked` runs before the lists are asked again. */
export function useRevokeToken(token: OwnToken, onRevoked: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      unwrap(
        await verdict.api.DELETE('/session/tokens/{tokenId}', { params: { path: { tokenId: token.id } } }),
      ),
    onSuccess: async () => {
      onRevoked();
      // Revoking this session's token ends the session: asking who is signed in leads to sign-in.
      await queryClient.invalidateQueries({
        queryKey: token.current ? sessionQuery().queryKey : ownTokensQuery().queryKey,
      });
    },
  });
}

export type GateRulesDocument = Read<'/{projectId}/gate-rules'>;

/** The project's quality gate rules (none: an empty object). */
export const gateRulesQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['gate-rules', projectId],
    queryFn: async ({ signal }): Promise<GateRulesDocument> =>
      unwrap(await verdict.api.GET('/{projectId}/gate-rules', { params: path(projectId), signal })).data,
    staleTime: 15_000,
  });

/** Sets the rules (an empty object removes the gate); the answer is the rules as saved. */
export function useSaveGateRules(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (rules: WriteBody<'/{projectId}/gate-rules', 'put'>) =>
      unwrap(await verdict.api.PUT('/{projectId}/gate-rules', { params: path(projectId), body: rules })).data,
    onSuccess: (saved) => queryClient.setQueryData(gateRulesQuery(projectId).queryKey, saved),
  });
}
