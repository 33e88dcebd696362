// The first page's Mantine CSS only; the other pages bring the rest (docs/web-shell.md "First page size").
import './styles/shell';
import { createTheme, MantineProvider } from '@mantine/core';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import i18n from '../shared/i18n/index';
import { SessionProvider } from '../shared/session/session';

/**
 * The toasts' container (react-transition-group with it, about 6 KB gzip) loads after the first paint;
 * a toast shown before it is there waits in @mantine/notifications' store and shows when it mounts.
 * It is mounted from an effect, so the first render (the pre-rendered `/`'s HTML and its hydration,
 * src/prerender/landing.tsx) never suspends on it: a boundary that suspended on the server is an error
 * to React's hydration (#419) and is drawn again.
 */
const Notifications = lazy(() =>
  import('@mantine/notifications').then((m) => ({ default: m.Notifications })),
);

const theme = createTheme({ primaryColor: 'yellow', defaultRadius: 'md' });

/** The app's providers but TanStack Query's, which comes with the pages (./query.tsx). */
export function Providers({ children }: { children: ReactNode }) {
  const [afterFirstRender, setAfterFirstRender] = useState(false);
  useEffect(() => setAfterFirstRender(true), []);
  return (
    <I18nextProvider i18n={i18n}>
      <MantineProvider theme={theme} defaultColorScheme="dark">
        {afterFirstRender && (
          <Suspense fallback={null}>
            <Notifications position="top-right" />
          </Suspense>
        )}
        <SessionProvider>{children}</SessionProvider>
      </MantineProvider>
    </I18nextProvider>
  );
}
