/**
 * Sign in once with a personal access token, or with the one-time link `npm start` prints (its code
 * travels in the URL fragment, which browsers never send to a server). Either way the server answers with
 * an httpOnly session cookie; the token is not kept in the browser.
 */
import { Center, Paper, Stack } from '@mantine/core';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useSignIn } from '../../api/session';
import { ThemeToggle } from '../../components/AppLayout';
import { SignInForm } from './SignInForm';
import { useLinkSignIn } from './useLinkSignIn';

const route = getRouteApi('/sign-in');

/** Only a path of this app is followed after sign-in, never another site. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInPage() {
  const { next } = route.useSearch();
  const navigate = useNavigate();
  const signIn = useSignIn({ onSuccess: () => void navigate({ href: safeNext(next), replace: true }) });
  useLinkSignIn(signIn.mutate);

  return (
    <Center mih="100vh" p="md">
      <Stack w={420} maw="100%">
        <Paper withBorder p="xl" radius="md" component="main">
          <SignInForm signIn={signIn} />
        </Paper>
        <Center>
          <ThemeToggle />
        </Center>
      </Stack>
    </Center>
  );
}
