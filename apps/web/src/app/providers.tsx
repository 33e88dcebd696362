// The first page's Mantine CSS only; the other pages bring the rest (docs/web-shell.md "First page size").
import './styles/shell';
import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import i18n from '../shared/i18n/index';
import { SessionProvider } from '../shared/session/session';

const theme = createTheme({ primaryColor: 'yellow', defaultRadius: 'md' });

export const makeQueryClient = () =>
  new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });

export function Providers({ children, queryClient }: { children: ReactNode; queryClient: QueryClient }) {
  return (
    <I18nextProvider i18n={i18n}>
      <MantineProvider theme={theme} defaultColorScheme="dark">
        <Notifications position="top-right" />
        <QueryClientProvider client={queryClient}>
          <SessionProvider>{children}</SessionProvider>
        </QueryClientProvider>
      </MantineProvider>
    </I18nextProvider>
  );
}
