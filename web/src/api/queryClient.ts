import { QueryCache, QueryClient } from '@tanstack/react-query';
import { isSignedOut } from './client';
import { sessionQuery } from './queries';

/**
 * Server state lives here and nowhere else. The client already retries as spec §7 says, so queries do
 * not retry on top of it. A 401 anywhere means the session ended (signed out elsewhere, its token
 * revoked, idle too long): the cache is dropped and the app asks to sign in again.
 */
export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (error) => {
      if (isSignedOut(error)) onSignedOut();
    },
  }),
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false },
    mutations: { retry: false },
  },
});

let signedOutHandler: () => void = () => undefined;

/** Where the app goes when the session ends; set once by the router. */
export function whenSignedOut(handler: () => void): void {
  signedOutHandler = handler;
}

function onSignedOut(): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionQuery().queryKey[0] });
  signedOutHandler();
}
