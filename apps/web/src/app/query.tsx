import { QueryClient, QueryClientContext, QueryClientProvider } from '@tanstack/react-query';
import { useContext, type ReactNode } from 'react';

/*
 * TanStack Query comes with the pages, not in the first script (about 10 KB gzip; docs/web-shell.md
 * "First page size"): the shell reads nothing through it (the ticker polls on its own), so every page
 * chunk (app/lazyPage.tsx) loads this module and renders inside `PageQueries`.
 */

export const makeQueryClient = () =>
  new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });

/** The app's one client: a module singleton, so the cache outlives a page and is shared by all. */
let appClient: QueryClient | null = null;

/**
 * The page's Query provider: the app's client, or one a caller put above (component tests give each
 * test its own, test/renderApp.tsx).
 */
export function PageQueries({ children }: { children: ReactNode }) {
  const outer = useContext(QueryClientContext);
  if (outer) return children;
  appClient ??= makeQueryClient();
  return <QueryClientProvider client={appClient}>{children}</QueryClientProvider>;
}
