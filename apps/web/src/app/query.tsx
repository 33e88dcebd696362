import { notifyManager, QueryClient, QueryClientContext, QueryClientProvider } from '@tanstack/react-query';
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
 * Query results reach the components at the next frame, all of that frame's together, instead of one
 * timer each (TanStack's default): a result re-renders its component in one synchronous task (React
 * cannot slice an external store's update), and a bot screen's four first answers, arriving a few
 * milliseconds apart, re-rendered the whole screen four times (issue 39: `/bot-dca`'s blocking time
 * on a phone). A hidden tab draws no frames: there, a timer as before.
 */
function notifyAtNextFrame(): void {
  notifyManager.setScheduler((run) => {
    if (document.visibilityState === 'hidden') setTimeout(run, 0);
    else requestAnimationFrame(run);
  });
}

/**
 * The page's Query provider: the app's client, or one a caller put above (component tests give each
 * test its own, test/renderApp.tsx).
 */
export function PageQueries({ children }: { children: ReactNode }) {
  const outer = useContext(QueryClientContext);
  if (outer) return children;
  if (!appClient) {
    notifyAtNextFrame();
    appClient = makeQueryClient();
  }
  return <QueryClientProvider client={appClient}>{children}</QueryClientProvider>;
}
