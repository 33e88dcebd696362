import { Navigate, useRoutes, type RouteObject } from 'react-router';
import { LandingPage } from '../features/landing/components/LandingPage';
import { RequireAuth } from '../shared/session/RequireAuth';
import { RouteErrorBoundary } from './ErrorPage';
import { lazyPage } from './lazyPage';
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

// The guard decides before the page's chunk is asked for: a logged-out visit downloads no page code.
const guard = (element: React.ReactNode, redirectTo = '/spot') => (
  <RequireAuth redirectTo={redirectTo}>{element}</RequireAuth>
);

export const routes: RouteObject[] = [
  {
    element: (
      <RouteErrorBoundary>
        <Shell />
      </RouteErrorBoundary>
    ),
    children: [
      { path: '/', element: <LandingPage /> },
      { path: '/forum', element: <ForumPage /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/registro', element: <RegisterPage /> },
      // The embedded chain's own transaction view (links of the token, staking and plan flows).
      { path: '/chain/tx/:hash', element: <ChainTxPage /> },
      // The guard's redirect target; opened from the header only by the support account.
      { path: '/spot', element: <SpotPage /> },
      { path: '/futuros', element: <FuturesPage /> },
      { path: '/wallet', element: guard(<WalletPage />) },
      { path: '/settings', element: guard(<SettingsPage />, '/') },
      { path: '/earnings-pools', element: guard(<EarningsPoolsPage />) },
      { path: '/LoansLiquidity', element: guard(<LoansLiquidityPage />) },
      { path: '/bot-dca', element: guard(<BotDcaPage />) },
      { path: '/dashboard', element: guard(<DashboardPage />) },
      { path: '/grid-bot', element: guard(<GridBotPage />) },
      { path: '/arbitraje', element: guard(<ArbitragePage />) },
      { path: '/signalbot', element: guard(<SignalBotPage />) },
      { path: '/GlobalPendingOrders', element: guard(<GlobalPendingOrdersPage />) },
      { path: '/historial-global', element: guard(<GlobalHistoryPage />) },
      { path: '/peliculas-series', element: guard(<MoviesSeriesPage />, '/') },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
];

/**
 * The routes under `<BrowserRouter>` (main.tsx): the declarative router, not `createBrowserRouter`. The
 * app uses no loader, action or fetcher, and the data router's code for them is about 17 KB gzip of
 * the first script (docs/web-shell.md "First page size").
 */
export function AppRoutes() {
  return useRoutes(routes);
}
