import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSendWebhookTest, webhookDeliveriesQuery } from './api';
import { attemptOf } from './webhooks';

/**
 * Sends a `webhook.test` event, then follows its attempt in the delivery log (asked again every second
 * until the attempt is made), so the row can say how the receiver answered.
 */
export function useSendTest(projectId: string, webhookId: string, onQueued: () => void) {
  const [sent, setSent] = useState<string | null>(null);
  const send = useSendWebhookTest(projectId, webhookId, (deliveryId) => {
    setSent(deliveryId);
    onQueued();
  });
  const log = useQuery({
    ...webhookDeliveriesQuery(projectId, webhookId),
    enabled: sent !== null,
    // Until the attempt is made: it is not listed yet, then listed as pending.
    refetchInterval: (query) =>
      (attemptOf(query.state.data, sent)?.status ?? 'pending') === 'pending' ? 1_000 : false,
  });
  return {
    sent,
    attempt: attemptOf(log.data, sent),
    isPending: send.isPending,
    error: send.error,
    send: () => {
      setSent(null);
      send.mutate();
    },
  };
}
