/** The token form: what to paste, the link sign-in's progress, the error, and where a token comes from. */
import { Alert, Anchor, Button, Code, Loader, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState } from 'react';
import { describeError } from '../../api/client';
import type { useSignIn } from '../../api/session';

function Intro() {
  return (
    <Stack gap={4}>
      <Title order={1} size="h2">
        Sign in to Verdict
      </Title>
      <Text size="sm" c="dimmed">
        Paste a personal access token (<Code>svc_pat_…</Code>). It opens a session in this browser; the token
        itself is not stored here.
      </Text>
    </Stack>
  );
}

function TokenHelp() {
  return (
    <Text size="xs" c="dimmed">
      No token yet? An administrator issues one with <Code>POST /admin/v1/tokens</Code>; on a first{' '}
      <Code>npm start</Code> the terminal shows a one-time sign-in link.{' '}
      <Anchor href="/docs" size="xs" underline="always">
        API docs
      </Anchor>
    </Text>
  );
}

export function SignInForm({ signIn }: { signIn: ReturnType<typeof useSignIn> }) {
  const [token, setToken] = useState('');
  const error = signIn.error ? describeError(signIn.error) : null;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (token.trim() !== '') signIn.mutate({ token: token.trim() });
      }}
    >
      <Stack>
        <Intro />
        {signIn.isPending && token === '' ? (
          <Text size="sm" role="status">
            <Loader size="xs" mr="xs" />
            Signing in with your link…
          </Text>
        ) : null}
        {error ? (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle aria-hidden />}
            title={error.title}
            role="alert"
          >
            {error.message}
          </Alert>
        ) : null}
        <PasswordInput
          label="Personal access token"
          placeholder="svc_pat_…"
          autoComplete="off"
          autoFocus
          value={token}
          onChange={(event) => setToken(event.currentTarget.value)}
          required
        />
        <Button type="submit" loading={signIn.isPending} disabled={token.trim() === ''}>
          Sign in
        </Button>
        <TokenHelp />
      </Stack>
    </form>
  );
}
