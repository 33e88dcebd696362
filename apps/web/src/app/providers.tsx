// The first page's CSS only; the other pages bring the rest (docs/web-shell.md "First page size").
import './styles/shell';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import i18n from '../shared/i18n/index';
import { SessionProvider } from '../shared/session/session';

/**
 * The toasts' container (react-transition-group with it, about 6 KB gzip) loads after the first paint,
 * inside Mantine's provider (./mantine.tsx), which it brings if no page did yet; a toast shown before
 * it is there waits in @mantine/notifications' store and shows when it mounts. It is mounted from an
 * effect, so the first render (the pre-rendered `/`'s HTML and its hydration, src/prerender/landing.tsx)
 * never suspends on it: a boundary that suspended on the server is an error to React's hydration (#419)
 * and is drawn again.
 */
const Notifications = lazy(async () => {
  const [{ Notifications: Toasts }, { AppMantine }] = await Promise.all([
    import('@mantine/notifications'),
    import('./mantine'),
  ]);
  return {
    default: () => (
      <AppMantine>
        <Toasts position="top-right" />
      </AppMantine>
    ),
  };
});

/**
 * The app's providers: i18n and the session. Mantine's provider is not one of them: the shell and the
 * landing draw without Mantine's runtime (shared/ui/plain.tsx), and each part that renders Mantine
 * components mounts its own (./mantine.tsx: the pages through ./lazyPage.tsx, the header's later
 * parts, the toasts). TanStack Query comes with the pages too (./query.tsx).
 */
export function Providers({ children }: { children: ReactNode }) {
  const [afterFirstRender, setAfterFirstRender] = useState(false);
  useEffect(() => setAfterFirstRender(true), []);
  return (
    <I18nextProvider i18n={i18n}>
      {afterFirstRender && (
        <Suspense fallback={null}>
          <Notifications />
        </Suspense>
      )}
      <SessionProvider>{children}</SessionProvider>
    </I18nextProvider>
  );
}
