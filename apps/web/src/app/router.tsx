import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { ArbitragePage } from '../features/arbitrage/components/ArbitragePage';
import { ChainTxPage } from '../features/chain/components/ChainTxPage';
import { LoginPage } from '../features/auth/components/LoginPage';
import { RegisterPage } from '../features/auth/components/RegisterPage';
import { DashboardPage } from '../features/dashboard/components/DashboardPage';
import { BotDcaPage } from '../features/dca/components/BotDcaPage';
import { EarningsPoolsPage } from '../features/earnings/components/EarningsPoolsPage';
import { ForumPage } from '../features/forum/components/ForumPage';
import { FuturesPage } from '../features/futures/components/FuturesPage';
import { GridBotPage } from '../features/grid/components/GridBotPage';
import { GlobalHistoryPage } from '../features/history/components/GlobalHistoryPage';
import { LandingPage } from '../features/landing/components/LandingPage';
import { LoansLiquidityPage } from '../features/loans/components/LoansLiquidityPage';
import { MoviesSeriesPage } from '../features/movies/components/MoviesSeriesPage';
import { GlobalPendingOrdersPage } from '../features/pending/components/GlobalPendingOrdersPage';
import { SettingsPage } from '../features/settings/components/SettingsPage';
import { SignalBotPage } from '../features/signal/components/SignalBotPage';
import { SpotPage } from '../features/spot/components/SpotPage';
import { WalletPage } from '../features/wallet/components/WalletPage';
import { RequireAuth } from '../shared/session/RequireAuth';
import { ErrorPage } from './ErrorPage';
import { Shell } from './shell/Shell';

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

const guard = (element: React.ReactNode, redirectTo = '/spot') => (
  <RequireAuth redirectTo={redirectTo}>{element}</RequireAuth>
);

export const routes: RouteObject[] = [
  {
    element: <Shell />,
    errorElement: <ErrorPage />,
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

export const createAppRouter = () => createBrowserRouter(routes);
