// The first page's Mantine CSS only; the other pages bring the rest (docs/web-shell.md "First page size").
import './styles/shell';
import { createTheme, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import i18n from '../shared/i18n/index';
import { SessionProvider } from '../shared/session/session';

/**
 * The toasts' container (react-transition-group with it, about 6 KB gzip) loads after the first paint;
 * a toast shown before it is there waits in @mantine/notifications' store and shows when it mounts.
 */
const Notifications = lazy(() =>
  import('@mantine/notifications').then((m) => ({ default: m.Notifications })),
);

const theme = createTheme({ primaryColor: 'yellow', defaultRadius: 'md' });

export const makeQueryClient = () =>
  new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });

export function Providers({ children, queryClient }: { children: ReactNode; queryClient: QueryClient }) {
  return (
    <I18nextProvider i18n={i18n}>
      <MantineProvider theme={theme} defaultColorScheme="dark">
        <Suspense fallback={null}>
          <Notifications position="top-right" />
        </Suspense>
        <QueryClientProvider client={queryClient}>
          <SessionProvider>{children}</SessionProvider>
        </QueryClientProvider>
      </MantineProvider>
    </I18nextProvider>
  );
}
