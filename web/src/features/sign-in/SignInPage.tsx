/**
 * Sign in once with a personal access token, or with the one-time link `npm start` prints (its code
 * travels in the URL fragment, which browsers never send to a server). Either way the server answers with
 * an httpOnly session cookie; the token is not kept in the browser.
 */
import {
  Alert,
  Anchor,
  Button,
  Center,
  Code,
  Loader,
  Paper,
  PasswordInput,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { describeError } from '../../api/client';
import { useSignIn } from '../../api/session';
import { ThemeToggle } from '../../components/AppLayout';

const route = getRouteApi('/sign-in');

/** Only a path of this app is followed after sign-in, never another site. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInPage() {
  const { next } = route.useSearch();
  const navigate = useNavigate();
  const [token, setToken] = useState('');
  const linkCode = useRef<string | null>(null);
  if (linkCode.current === null) {
    linkCode.current = new URLSearchParams(window.location.hash.slice(1)).get('code') ?? '';
  }
  const signIn = useSignIn({ onSuccess: () => void navigate({ href: safeNext(next), replace: true }) });
  const { mutate } = signIn;

  useEffect(() => {
    const code = linkCode.current;
    if (!code) return;
    // The code is spent by this request: drop it from the address bar and the history at once.
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
    linkCode.current = '';
    mutate({ code });
  }, [mutate]);

  const error = signIn.error ? describeError(signIn.error) : null;
  return (
    <Center mih="100vh" p="md">
      <Stack w={420} maw="100%">
        <Paper withBorder p="xl" radius="md" component="main">
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (token.trim() !== '') signIn.mutate({ token: token.trim() });
            }}
          >
            <Stack>
              <Stack gap={4}>
                <Title order={1} size="h2">
                  Sign in to Verdict
                </Title>
                <Text size="sm" c="dimmed">
                  Paste a personal access token (<Code>svc_pat_…</Code>). It opens a session in this browser;
                  the token itself is not stored here.
                </Text>
              </Stack>
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
              <Text size="xs" c="dimmed">
                No token yet? An administrator issues one with <Code>POST /admin/v1/tokens</Code>; on a first{' '}
                <Code>npm start</Code> the terminal shows a one-time sign-in link.{' '}
                <Anchor href="/docs" size="xs" underline="always">
                  API docs
                </Anchor>
              </Text>
            </Stack>
          </form>
        </Paper>
        <Center>
          <ThemeToggle />
        </Center>
      </Stack>
    </Center>
  );
}
