import { Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';

/** What the section shows of its list's query. */
export interface ListQuery<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T[] | undefined;
  refetch: () => unknown;
}

/** A titled section of the page: loading, the error, the empty text or its items. */
export function ListSection<T>({
  title,
  query,
  empty,
  children,
}: {
  title: string;
  query: ListQuery<T>;
  empty: string;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <Stack gap="sm" component="section" aria-label={title}>
      <Title order={2} size="h3">
        {title}
      </Title>
      {query.isPending ? (
        <LoadingState rows={2} />
      ) : query.isError || !query.data ? (
        <ErrorState error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title={empty} />
      ) : (
        children(query.data)
      )}
    </Stack>
  );
}
