import { lazy, useState, type ComponentProps, type ComponentType } from 'react';
import { loadCatalogs } from '../shared/i18n/index';

/** The other pages' Mantine CSS (`./styles/pages.ts`): one shared chunk, fetched once. */
const loadPageStyles = () => import('./styles/pages');

/** TanStack Query and the app's client (./query.tsx), which only pages use. */
const loadQueries = () => import('./query');

/** Mantine's provider (./mantine.tsx): the shell draws without it, the pages with it. */
const loadMantine = () => import('./mantine');

/** Who waits for the first page chunk (app/providers.tsx: the toasts a page may show). */
const pageListeners = new Set<() => void>();
let pageLoaded = false;

/** Calls `run` once a page chunk has loaded (at once if one has). Returns a cancel function. */
export function onPageLoaded(run: () => void): () => void {
  if (pageLoaded) {
    run();
    return () => undefined;
  }
  pageListeners.add(run);
  return () => pageListeners.delete(run);
}

/**
 * A page's code is there: whoever waits for it (the toasts' watcher) runs now. Called by `lazyPage` and by
 * the component tests' `renderApp`, whose pages are imported directly, not through a chunk.
 */
export function markPageLoaded(): void {
  if (pageLoaded) return;
  pageLoaded = true;
  for (const run of pageListeners) run();
  pageListeners.clear();
}

/** A lazy page that can be asked for before it renders (./router.tsx, `preloadPage`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LazyPage<C extends ComponentType<any>> = ComponentType<ComponentProps<C>> & {
  /** Starts downloading the page and what it renders with; resolves when all of it is there. */
  preload: () => Promise<void>;
};

/**
 * A page of its own chunk (route-level code splitting, docs/web-shell.md "First page size"): its
 * code, the Mantine CSS beyond the shell's and the other catalogs download in parallel on the first
 * visit, and the page renders once all of them are there (Vite's preload waits for the CSS link, so
 * nothing shows unstyled), inside Mantine's and the Query provider (./mantine.tsx, ./query.tsx, also
 * loaded then). The shell's `<Suspense>` shows `PageFallback` meanwhile.
 *
 * `preload()` starts that download before the page renders: the router calls it at start-up for the
 * page of the URL (./router.tsx), so a protected page's chunks come in parallel with GET /api/me, not
 * after it (issue 39: `/bot-dca`'s first visit). A page whose download is over when it first renders
 * renders at once, without suspending: `React.lazy` suspends on its first render even then, and once a
 * fallback has been shown React holds the content back until 300 ms after it (its throttling of
 * Suspense reveals).
 */
// `any` props: the same constraint as React.lazy's own; the page's real props come out typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lazyPage<K extends string, M extends { [k in K]: ComponentType<any> }>(
  load: () => Promise<M>,
  name: K,
): LazyPage<M[K]> {
  type Props = ComponentProps<M[K]>;
  let loaded: ComponentType<Props> | null = null;
  let loading: Promise<ComponentType<Props>> | null = null;
  const start = () =>
    (loading ??= (async () => {
      const [mod, { PageQueries }, { AppMantine }] = await Promise.all([
        load(),
        loadQueries(),
        loadMantine(),
        loadPageStyles(),
        loadCatalogs(),
      ]);
      const Page: ComponentType<Props> = mod[name];
      const WithQueries = (props: Props) => (
        <AppMantine>
          <PageQueries>
            <Page {...props} />
          </PageQueries>
        </AppMantine>
      );
      loaded = WithQueries;
      return WithQueries;
    })().catch((err: unknown) => {
      // A failed download (network) is asked for again by the next render or preload.
      loading = null;
      throw err;
    }));
  const Lazy = lazy(async () => {
    const Loaded = await start();
    markPageLoaded();
    return { default: Loaded };
  });
  const LazyPageComponent = (props: Props) => {
    // Chosen once per mount: switching from the lazy path to the loaded one would mount the page anew.
    const [ready] = useState(() => {
      if (loaded) markPageLoaded();
      return loaded;
    });
    const Shown = ready ?? Lazy;
    return <Shown {...props} />;
  };
  return Object.assign(LazyPageComponent, {
    preload: () =>
      start().then(
        () => undefined,
        () => undefined,
      ),
  });
}
