/**
 * Project settings: the quality gate's rules (issue 32: owners and admins set them, others read them), then
 * the webhook subscriptions (spec §4.9, §6). Every member reads them and their delivery
 * log (status, response code, time); owners and admins create them (the signing secret is shown once, to
 * copy), edit, pause or re-enable, send a test event to and delete them. Below them, the person's own
 * tokens (settings/OwnTokensSection).
 */
import { Stack, Title } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import type { Webhook } from '../../api/queries';
import { useCanManageWebhooks, useCanSetGateRules } from '../../api/role';
import { SecretOnceDialog } from '../../components/SecretOnceDialog';
import { GateRulesSection } from './GateRulesSection';
import { OwnTokensSection } from './OwnTokensSection';
import { WebhookDialog } from './WebhookDialog';
import { WebhooksSection } from './WebhooksSection';

const route = getRouteApi('/signed-in/projects/$projectId/settings');

export function SettingsPage() {
  const { projectId } = route.useParams();
  const canManage = useCanManageWebhooks(projectId);
  const canSetGate = useCanSetGateRules(projectId);
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <Stack>
      <Title order={1} size="h2">
        Project settings
      </Title>
      <GateRulesSection projectId={projectId} canManage={canSetGate} />
      <WebhooksSection projectId={projectId} canManage={canManage} onEdit={setEditing} />
      <OwnTokensSection projectId={projectId} />
      {editing ? (
        <WebhookDialog
          projectId={projectId}
          webhook={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onCreated={(created) => {
            setSecret(created);
            setEditing(null);
          }}
        />
      ) : null}
      <SecretOnceDialog
        secret={secret}
        title="The webhook’s signing secret"
        name="signing secret"
        onClose={() => setSecret(null)}
      >
        Your receiver checks each delivery’s X-Service-Signature with it.
      </SecretOnceDialog>
    </Stack>
  );
}
