/** The session's writes that several places make: signing in (the sign-in page) and out (the app bar). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { rememberCsrfToken, verdict, type WriteBody } from './client';
import { sessionQuery } from './queries';

/** Opens a session with a token or a one-time code; the answer becomes the cached session. */
export function useSignIn({ onSuccess }: { onSuccess?: () => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WriteBody<'/session', 'post'>) =>
      unwrap(await verdict.api.POST('/session', { body })).data,
    onSuccess: (session) => {
      rememberCsrfToken(session.csrfToken);
      queryClient.setQueryData(sessionQuery().queryKey, session);
      onSuccess?.();
    },
  });
}

/** Ends the session, whatever the answer, and forgets every cached read. */
export function useSignOut({ onSettled }: { onSettled?: () => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await verdict.api.DELETE('/session')),
    onSettled: () => {
      rememberCsrfToken(null);
      queryClient.clear();
      onSettled?.();
    },
  });
}
