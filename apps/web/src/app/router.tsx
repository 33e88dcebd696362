import type { ComponentType } from 'react';
import { matchRoutes, useRoutes, type RouteObject } from 'react-router';
import { LandingPage } from '../features/landing/components/LandingPage';
import { RequireAuth } from '../shared/session/RequireAuth';
import { RouteErrorBoundary } from './ErrorPage';
import { lazyPage, type LazyPage } from './lazyPage';
import { NotFoundNotice, NotFoundRedirect } from './NotFound';
import { Shell } from './shell/Shell';

/*
 * Every page but the landing is its own chunk, loaded on its first visit (docs/web-shell.md "First page
 * size"); `test/first-page-split.test.ts` fails if a page is imported statically here. The landing is
 * `/`, the first page itself: it is small (2 KB gzip) and in the first script, so `/` paints without a
 * second round trip and without a placeholder that would shift.
 */
const ArbitragePage = lazyPage(
  () => import('../features/arbitrage/components/ArbitragePage'),
  'ArbitragePage',
);
const ChainTxPage = lazyPage(() => import('../features/chain/components/ChainTxPage'), 'ChainTxPage');
const LoginPage = lazyPage(() => import('../features/auth/components/LoginPage'), 'LoginPage');
const RegisterPage = lazyPage(() => import('../features/auth/components/RegisterPage'), 'RegisterPage');
const DashboardPage = lazyPage(
  () => import('../features/classic-dca/components/DashboardPage'),
  'DashboardPage',
);
const BotDcaPage = lazyPage(() => import('../features/grid-dca/components/BotDcaPage'), 'BotDcaPage');
const EarningsPoolsPage = lazyPage(
  () => import('../features/earnings/components/EarningsPoolsPage'),
  'EarningsPoolsPage',
);
const ForumPage = lazyPage(() => import('../features/forum/components/ForumPage'), 'ForumPage');
const FuturesPage = lazyPage(() => import('../features/futures/components/FuturesPage'), 'FuturesPage');
const GridBotPage = lazyPage(() => import('../features/grid/components/GridBotPage'), 'GridBotPage');
const GlobalHistoryPage = lazyPage(
  () => import('../features/history/components/GlobalHistoryPage'),
  'GlobalHistoryPage',
);
const LoansLiquidityPage = lazyPage(
  () => import('../features/loans/components/LoansLiquidityPage'),
  'LoansLiquidityPage',
);
const MoviesSeriesPage = lazyPage(
  () => import('../features/movies/components/MoviesSeriesPage'),
  'MoviesSeriesPage',
);
const GlobalPendingOrdersPage = lazyPage(
  () => import('../features/pending/components/GlobalPendingOrdersPage'),
  'GlobalPendingOrdersPage',
);
const SettingsPage = lazyPage(() => import('../features/settings/components/SettingsPage'), 'SettingsPage');
const SignalBotPage = lazyPage(() => import('../features/signal/components/SignalBotPage'), 'SignalBotPage');
const SpotPage = lazyPage(() => import('../features/spot/components/SpotPage'), 'SpotPage');
const WalletPage = lazyPage(() => import('../features/wallet/components/WalletPage'), 'WalletPage');

/** Protected routes of spec part 1 §2 and part 2 §2; an absent user goes to /spot (settings: to /). */
export const PROTECTED_PATHS = [
  '/historial-global',
  '/earnings-pools',
  '/settings',
  '/wallet',
  '/dashboard',
  '/grid-bot',
  '/arbitraje',
  '/bot-dca',
  '/signalbot',
  '/LoansLiquidity',
  '/GlobalPendingOrders',
] as const;
export const OPEN_PATHS = ['/', '/forum', '/login', '/registro'] as const;

/** A lazy page of any props (React.lazy's own constraint). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyPage = LazyPage<ComponentType<any>>;

/** What `preloadPage` needs of a route: its lazy page, and whether it is for a logged-in visitor only. */
interface PageHandle {
  page: AnyPage;
  guarded: boolean;
}

const open = (Page: AnyPage): Pick<RouteObject, 'element' | 'handle'> => ({
  element: <Page />,
  handle: { page: Page, guarded: false } satisfies PageHandle,
});

// The guard decides before the page renders: a logged-out visit downloads no page code (nor does
// `preloadPage` ask for it without a stored token).
const guard = (Page: AnyPage, redirectTo = '/spot'): Pick<RouteObject, 'element' | 'handle'> => ({
  element: (
    <RequireAuth redirectTo={redirectTo}>
      <Page />
    </RequireAuth>
  ),
  handle: { page: Page, guarded: true } satisfies PageHandle,
});

export const routes: RouteObject[] = [
  {
    element: (
      <RouteErrorBoundary>
        <Shell />
      </RouteErrorBoundary>
    ),
    children: [
      {
        path: '/',
        element: (
          <>
            <NotFoundNotice />
            <LandingPage />
          </>
        ),
      },
      { path: '/forum', ...open(ForumPage) },
      { path: '/login', ...open(LoginPage) },
      { path: '/registro', ...open(RegisterPage) },
      // The embedded chain's own transaction view (links of the token, staking and plan flows).
      { path: '/chain/tx/:hash', ...open(ChainTxPage) },
      // The guard's redirect target; opened from the header only by the support account.
      { path: '/spot', ...open(SpotPage) },
      { path: '/futuros', ...open(FuturesPage) },
      { path: '/wallet', ...guard(WalletPage) },
      { path: '/settings', ...guard(SettingsPage, '/') },
      { path: '/earnings-pools', ...guard(EarningsPoolsPage) },
      { path: '/LoansLiquidity', ...guard(LoansLiquidityPage) },
      { path: '/bot-dca', ...guard(BotDcaPage) },
      { path: '/dashboard', ...guard(DashboardPage) },
      { path: '/grid-bot', ...guard(GridBotPage) },
      { path: '/arbitraje', ...guard(ArbitragePage) },
      { path: '/signalbot', ...guard(SignalBotPage) },
      { path: '/GlobalPendingOrders', ...guard(GlobalPendingOrdersPage) },
      { path: '/historial-global', ...guard(GlobalHistoryPage) },
      { path: '/peliculas-series', ...guard(MoviesSeriesPage, '/') },
      // The spec's redirect home; the notice on `/` says the page does not exist.
      { path: '*', element: <NotFoundRedirect /> },
    ],
  },
];

/**
 * Starts downloading the page of `pathname` (its chunks, CSS and catalogs) before the first render
 * (main.tsx); resolves when it is there (or failed: its render will ask again). The URL says which
 * page will render; for a logged-in page, a stored token says the visitor probably is logged in, so its
 * chunks come in parallel with GET /api/me instead of after it (issue 39: `/bot-dca`'s first visit).
 * Nothing for `/` (in the first script), for an unknown path (redirected home) or for a logged-in page
 * without a token (redirected, no page code downloaded): then `null`.
 */
export function preloadPage(pathname: string, hasToken: boolean): Promise<void> | null {
  const handle = matchRoutes(routes, pathname)?.at(-1)?.route.handle as PageHandle | undefined;
  if (!handle || (handle.guarded && !hasToken)) return null;
  return handle.page.preload();
}

/**
 * The routes under `<BrowserRouter>` (main.tsx): the declarative router, not `createBrowserRouter`. The
 * app uses no loader, action or fetcher, and the data router's code for them is about 17 KB gzip of
 * the first script (docs/web-shell.md "First page size").
 */
export function AppRoutes() {
  return useRoutes(routes);
}
