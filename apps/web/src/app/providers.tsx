// The first page's CSS only; the other pages bring the rest (docs/web-shell.md "First page size").
import './styles/shell';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import i18n from '../shared/i18n/index';
import { SessionProvider } from '../shared/session/session';
import { onPageLoaded } from './lazyPage';
import { whenWanted } from './shell/wanted';

/**
 * The toasts' container (react-transition-group with it, about 6 KB gzip) loads inside Mantine's
 * provider (./mantine.tsx), which it brings if no page did yet, when it is wanted: at the visitor's first
 * interaction or once the loaded page is quiet (./shell/wanted.ts), or as soon as a toast is waiting in
 * @mantine/notifications' store (a page's, shown before that: ./toastStore.ts, watched once a page has
 * loaded, since only pages show toasts without a click). The waiting toast shows when it mounts. It is
 * mounted from an effect, so the first render (the pre-rendered `/`'s HTML and its hydration,
 * src/prerender/landing.tsx) never suspends on it: a boundary that suspended on the server is an error to
 * React's hydration (#419) and is drawn again.
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
  const [toasts, setToasts] = useState(false);
  useEffect(() => {
    const show = () => setToasts(true);
    const cancelWanted = whenWanted(show);
    let cancelWatch = () => {};
    const cancelPage = onPageLoaded(() => {
      void import('./toastStore').then(({ watchToasts }) => {
        cancelWatch = watchToasts(show);
      });
    });
    return () => {
      cancelWanted();
      cancelPage();
      cancelWatch();
    };
  }, []);
  return (
    <I18nextProvider i18n={i18n}>
      {toasts && (
        <Suspense fallback={null}>
          <Notifications />
        </Suspense>
      )}
      <SessionProvider>{children}</SessionProvider>
    </I18nextProvider>
  );
}
