/**
 * How component tests render: inside the app's providers (Mantine with the app's theme, a query cache of the
 * test's own), and for a component that reads the URL, under a router on a memory history whose location
 * the test reads back. Nothing here talks to a server: a test seeds the cache or stubs the API (api.ts).
 */
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRouter,
  RouterProvider,
  type AnyRoute,
} from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { render } from 'vitest-browser-react';
import { cssVariablesResolver, theme } from '../theme';

/** A query cache as the app's (no retries), holding `seeds` (query key → data) fresh for the whole test. */
export function testQueryClient(seeds: readonly (readonly [QueryKey, unknown])[] = []): QueryClient {
  const client = new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: Infinity },
      mutations: { retry: false },
    },
  });
  for (const [key, data] of seeds) client.setQueryData(key, data);
  return client;
}

function providers(queryClient: QueryClient) {
  return function AppProviders({ children }: { children: ReactNode }) {
    return (
      <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
        <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
      </MantineProvider>
    );
  };
}

/** Renders `ui` as the app would show it; resolves with vitest-browser-react's screen and the cache. */
export async function renderInApp(ui: ReactNode, { queryClient = testQueryClient() } = {}) {
  const screen = await render(ui, { wrapper: providers(queryClient) });
  return { screen, queryClient };
}

/**
 * Renders a route tree at `url` on a memory history, in the app's providers (the router's context holds the
 * cache, as the app's does). `router.state.location` is where the app went.
 */
export async function renderAtUrl(
  routeTree: AnyRoute,
  url: string,
  { queryClient = testQueryClient() } = {},
) {
  const router = createRouter({
    routeTree,
    history: createMemoryHistory({ initialEntries: [url] }),
    context: { queryClient },
  });
  await router.load();
  const screen = await render(<RouterProvider router={router as never} />, {
    wrapper: providers(queryClient),
  });
  return { screen, router, queryClient };
}

/** A one-page route tree: `component` at every path, search parameters as the URL has them. */
export function pageAt(component: () => ReactNode): AnyRoute {
  return createRootRoute({ component });
}
